// Real marketplace content (issue 15, closing note: "the number of HIGH/CRITICAL findings before and after on
// the largest public marketplace you can build a faithful local copy of"). The npm registry is the only public
// source this machine reaches, so the content is the Claude Code plugins, skills, agents, commands and hooks that
// popular npm packages ship: each pinned version below is `npm pack`ed into a scratch directory (checked against
// its integrity hash; a tarball already there is reused), unpacked, and laid out as one marketplace:
// `.claude-plugin/marketplace.json` and `plugins/<package>/` holding the package's files as shipped.
//  - A package that ships its own `.claude-plugin/marketplace.json` whose plugins it ships too keeps its entries,
//    with each source moved under `plugins/<package>/`.
//  - Any other package is one plugin at `plugins/<package>/`: its own plugin.json when it has one, and its entry
//    declares where it ships components (skill directories, `agents/` and `commands/` directories, hooks.json and
//    `.claude/settings.json` files with hooks, `.mcp.json`, `mcp.json` and settings files with `mcpServers`), which
//    is what an author republishing it would write.
//  - `node_modules/` trees bundled in a tarball are left out: they are libraries, not plugin content.
// Every built-in connector (the external `http` one aside) runs over the tree; the HIGH/CRITICAL findings are
// written per connector and rule, each with its line of text, to bench/results/real-marketplace.{json,md}. The
// previous results file, when there is one, is kept as the "before" figure in the new one.
//
//   node --import tsx bench/real-marketplace.ts      (or npm run bench with BENCH_ONLY=real-marketplace)
//   REAL_MARKETPLACE_DIR   scratch directory (default: $TMPDIR/gateway-real-marketplace); needs `npm` and `tar`
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtInConnectors } from '../src/adapters/vetting/registry.ts';
import { isBlocking, pathOfLocation, type Finding } from '../src/domain/vetting/findings.ts';
import { scanInput } from '../test/support/scan-input.ts';
import { log } from './env.ts';
import { machine, writeResultFiles } from './report.ts';

/** Exact versions and the registry's integrity hashes (`npm view <name>@<version> dist.integrity`). */
export const packages = [
  {
    name: 'oh-my-claude-sisyphus',
    version: '5.5.0',
    integrity: 'sha512-OXqzzFwPZ6CfCej1S7VM2/6rErioskmKluA+JEzRfZdKLQ3ci2iTVd/FZ7uu4UsOs9Gqs5mmtfT54jIKUqOjug==',
  },
  {
    name: 'claude-flow',
    version: '3.43.0',
    integrity: 'sha512-qaONGM4PdXHstuoXWUjVHlhJdFoNrn9TfWSVT7msEod8By5yMZpc86ww0a9l1qppyYqCG4TvsVaV7XvWnFJd/g==',
  },
  {
    name: 'claude-flow-novice',
    version: '2.21.0',
    integrity: 'sha512-Lv69iaiqj8FFcE0aQEzxAxghm5ptuWAHy31Uwlcr+Q3yiMmXn+zgtt1CUcFsYD4mRDCsC9GLVx7GQ4XVlXCEOw==',
  },
  {
    name: 'get-shit-done-cc',
    version: '1.42.3',
    integrity: 'sha512-3sQoRYFl7v7dju3LXq7sE3pnufGHF7R6xfDU1DaH2+YYe4V6+dhoaUo4KoBHvjtLQ8UATUX3hWofHg+tAUUALQ==',
  },
  {
    name: 'bmad-method',
    version: '6.12.0',
    integrity: 'sha512-gbbHo32TxCPwo4Yy70kqykFRwN5UdYqfnDKTsKAsF9m5qtLeoiCgEawj/LuzLBHLrYA0WTOyL/XWtXpgyDonMQ==',
  },
  {
    name: 'claude-code-plugins',
    version: '1.0.3',
    integrity: 'sha512-Ib43vVNxQj1RqzxVPJYm3zceRAxkFTun9pYNwbCEWe4QkhXI/wTWrBAvBtUfLjfx+4H09FfAW1UcbgHqn3TZzQ==',
  },
  {
    name: 'dantelabs-agentic-school',
    version: '1.8.1',
    integrity: 'sha512-Tv+fXS9xXdP5W09iS+ye59zRV+ZcoTiyYZ9hH+mMAb3R7M53sO1TVLW+dzqpENXe85RAX3dofP1WvRoIdyC0CA==',
  },
  {
    name: 'selfish-pipeline',
    version: '1.3.0',
    integrity: 'sha512-VvwhCwZss/379xp3/6yWCcA22HD3aZKqMZjur7ZlygPsiv2OkpiJZS2ry5xd60sphGUq1jJjwDcP+Wh9Wx15CQ==',
  },
  {
    name: '@pimzino/claude-code-spec-workflow',
    version: '1.5.9',
    integrity: 'sha512-U9o2ctclSWrGzaiALwNu6DdVZ3ebMsgpfmoAAkh3LYjbABcekC1wdPUQieVO/mCqbWoWFBFccD+OT+dZn+CP+w==',
  },
  {
    name: '@apogeelabs/the-agency',
    version: '0.11.0',
    integrity: 'sha512-k8KHrBaeX66ZdbN2kcdehAxhEghxmCz2cUgA8rK8PND9Ol9nlvL6GW20jAcOAd00bG7RirTq9nEtxra2Qia44Q==',
  },
] as const;

type Json = Record<string, unknown>;
type Tree = Map<string, Buffer>;
const marketplacePath = '.claude-plugin/marketplace.json';
const slugOf = (name: string) => name.replace(/^@/, '').replace('/', '-');
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The package's tarball in `dir`, packed from the registry unless one with the pinned integrity is there. */
function tarball(pkg: (typeof packages)[number], dir: string): string {
  const file = join(dir, `${slugOf(pkg.name)}-${pkg.version}.tgz`);
  const integrityOf = (path: string) => `sha512-${createHash('sha512').update(readFileSync(path)).digest('base64')}`;
  if (!existsSync(file) || integrityOf(file) !== pkg.integrity) {
    log(`real-marketplace: npm pack ${pkg.name}@${pkg.version}`);
    execFileSync('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', dir, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const got = integrityOf(file);
  if (got !== pkg.integrity) throw new Error(`${pkg.name}@${pkg.version}: integrity ${got}, pinned ${pkg.integrity}`);
  return file;
}

/** The package's files (tarball's `package/` prefix removed), bundled node_modules left out. */
function unpack(file: string, into: string): Tree {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['xzf', file, '-C', into, '--no-same-owner']);
  const top = readdirSync(into)[0]!;
  const tree: Tree = new Map();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (entry === 'node_modules') continue;
      const path = join(dir, entry);
      const relative = prefix === '' ? entry : `${prefix}/${entry}`;
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, relative);
      else if (stat.isFile()) tree.set(relative, readFileSync(path));
    }
  };
  walk(join(into, top), '');
  return tree;
}

const jsonOf = (tree: Tree, path: string): Json | null => {
  try {
    const value: unknown = JSON.parse(tree.get(path)?.toString('utf8') ?? 'null');
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
};

/** The topmost directories named `name` that hold Markdown, as `./dir/` paths. */
function topDirsNamed(paths: readonly string[], name: string): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    if (!path.endsWith('.md')) continue;
    const parts = path.split('/');
    const at = parts.indexOf(name);
    if (at !== -1 && at < parts.length - 1) dirs.add(`./${parts.slice(0, at + 1).join('/')}/`);
  }
  return [...dirs].sort();
}

/** Where a package that is not itself a marketplace ships its components, as its marketplace entry declares them. */
function declaredComponents(tree: Tree): Json {
  const paths = [...tree.keys()];
  const skills = paths
    .filter((p) => p.endsWith('/SKILL.md'))
    .map((p) => `./${dirname(p)}`)
    .sort();
  const hooks = paths
    .filter((p) => /(?:^|\/)(?:hooks\.json|settings(?:\.local)?\.json)$/.test(p) && p !== 'hooks/hooks.json')
    .filter((p) => isObject(jsonOf(tree, p)?.hooks))
    .map((p) => `./${p}`);
  const mcp = paths
    .filter((p) => /(?:^|\/)(?:\.?mcp|settings(?:\.local)?)\.json$/.test(p) && p !== '.mcp.json')
    .filter((p) => isObject(jsonOf(tree, p)?.mcpServers))
    .map((p) => `./${p}`);
  const components: Json = {};
  if (skills.length > 0) components.skills = skills;
  const agents = topDirsNamed(paths, 'agents');
  const commands = topDirsNamed(paths, 'commands');
  if (agents.length > 0) components.agents = agents;
  if (commands.length > 0) components.commands = commands;
  if (hooks.length > 0) components.hooks = hooks;
  if (mcp.length > 0) components.mcpServers = mcp;
  return components;
}

/** The marketplace entries of one package, sources under `plugins/<slug>/`. */
function entriesOf(pkg: (typeof packages)[number], tree: Tree): Json[] {
  const root = `plugins/${slugOf(pkg.name)}`;
  const own = jsonOf(tree, marketplacePath);
  const ownPlugins = Array.isArray(own?.plugins) ? own.plugins.filter(isObject) : [];
  const shipped = (source: unknown) =>
    typeof source === 'string' &&
    (source === './' ||
      [...tree.keys()].some((p) => p.startsWith(`${source.replace(/^\.\//, '').replace(/\/$/, '')}/`)));
  if (ownPlugins.length > 0 && ownPlugins.every((p) => shipped(p.source))) {
    return ownPlugins.map((p) => ({
      ...p,
      source: `./${root}/${String(p.source).replace(/^\.\//, '').replace(/\/$/, '')}`.replace(/\/$/, ''),
    }));
  }
  const packageJson = jsonOf(tree, 'package.json');
  return [
    {
      name: slugOf(pkg.name),
      source: `./${root}`,
      version: pkg.version,
      description: typeof packageJson?.description === 'string' ? packageJson.description : pkg.name,
      ...declaredComponents(tree),
    },
  ];
}

export type RealFinding = Readonly<{
  connector: string;
  rule: string;
  severity: string;
  location: string;
  text: string | null;
  message: string;
}>;

/** Builds the marketplace tree in memory (and under `dir/marketplace` to read), from the pinned packages. */
export function buildMarketplace(dir: string): Readonly<{ files: Tree; plugins: number; packages: number }> {
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  const files: Tree = new Map();
  const plugins: Json[] = [];
  for (const pkg of packages) {
    const tree = unpack(tarball(pkg, tarballs), join(dir, 'unpacked', slugOf(pkg.name)));
    for (const [path, content] of tree) files.set(`plugins/${slugOf(pkg.name)}/${path}`, content);
    plugins.push(...entriesOf(pkg, tree));
  }
  const manifest = {
    name: 'npm-claude-code-content',
    owner: { name: 'Skill Marketplace Governance Gateway benchmark' },
    metadata: { description: 'Claude Code plugins, skills, agents, commands and hooks as published on npm' },
    plugins,
  };
  files.set(marketplacePath, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  const out = join(dir, 'marketplace');
  rmSync(out, { recursive: true, force: true });
  for (const [path, content] of files) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), content);
  }
  return { files, plugins: plugins.length, packages: packages.length };
}

/** Every built-in connector over the tree; the HIGH/CRITICAL findings with their line of text. */
export async function vet(
  files: Tree,
): Promise<
  Readonly<{ findings: RealFinding[]; all: Record<string, Readonly<{ findings: number; detail: string | null }>> }>
> {
  const input = scanInput(Object.fromEntries(files));
  const subject = { snapshotId: 0, marketplace: 'npm-claude-code-content', sha: '0'.repeat(40) };
  const findings: RealFinding[] = [];
  const all: Record<string, Readonly<{ findings: number; detail: string | null }>> = {};
  for (const connector of builtInConnectors({ http: { url: null, timeoutMs: 0 } })) {
    const result = await connector.scan(input, subject, new AbortController().signal);
    all[connector.name] = { findings: result.findings.length, detail: result.detail };
    for (const finding of result.findings.filter(isBlocking)) findings.push(withText(connector.name, finding, files));
  }
  return { findings, all };
}

function withText(connector: string, finding: Finding, files: Tree): RealFinding {
  const path = pathOfLocation(finding.location);
  const line = Number(/:(\d+)$/.exec(finding.location)?.[1] ?? 1);
  const file = files.get(path);
  const raw = file === undefined || file.includes(0) ? null : (file.toString('utf8').split('\n')[line - 1] ?? null);
  const text = raw === null ? null : raw.trim().length > 240 ? `${raw.trim().slice(0, 239)}…` : raw.trim();
  return {
    connector,
    rule: finding.id,
    severity: finding.severity,
    location: finding.location,
    text,
    message: finding.message,
  };
}

const resultsJson = join(dirname(fileURLToPath(import.meta.url)), 'results', 'real-marketplace.json');

type Previous = Readonly<{ date: string; commit: string; blocking: number; byRule: Record<string, number> }>;

function previousRun(): Previous | null {
  if (!existsSync(resultsJson)) return null;
  const value = JSON.parse(readFileSync(resultsJson, 'utf8')) as Json;
  return typeof value.date === 'string' && typeof value.blocking === 'number'
    ? {
        date: value.date,
        commit: String(value.commit),
        blocking: value.blocking,
        byRule: (value.byRule ?? {}) as Record<string, number>,
      }
    : null;
}

const head = (): string => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

function markdown(
  report: Json,
  findings: readonly RealFinding[],
  byRule: Record<string, number>,
  before: Previous | null,
): string {
  const lines = [
    '# Real marketplace content: HIGH/CRITICAL findings of the built-in connectors',
    '',
    `${String(report.date)} · commit ${String(report.commit)} · ${String(report.packages)} npm packages, ${String(report.plugins)} plugins, ${String(report.files)} files`,
    '',
    'Packages (exact versions, integrity-checked): ' + packages.map((p) => `${p.name}@${p.version}`).join(', ') + '.',
    'Built by bench/real-marketplace.ts; every built-in connector but `http` ran over the tree.',
    '',
    `**${findings.length} HIGH/CRITICAL findings**` +
      (before === null ? '.' : ` (previous run ${before.date}, commit ${before.commit}: ${before.blocking}).`),
    '',
    '| connector / rule | findings | previous run |',
    '| --- | ---: | ---: |',
    ...Object.entries({ ...Object.fromEntries(Object.keys(before?.byRule ?? {}).map((k) => [k, 0])), ...byRule })
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([rule, n]) => `| ${rule} | ${n} | ${before === null ? '-' : (before.byRule[rule] ?? 0)} |`),
    '',
    '## Findings',
    '',
  ];
  for (const f of findings) {
    lines.push(`- **${f.connector} ${f.rule}** ${f.severity} at \`${f.location}\``);
    lines.push(`  - line: \`${(f.text ?? '(no text)').replaceAll('`', "'")}\``);
    lines.push(`  - ${f.message.replaceAll('\n', ' ')}`);
  }
  lines.push('');
  return lines.join('\n');
}

export async function realMarketplaceBenchmark(): Promise<void> {
  const dir = process.env.REAL_MARKETPLACE_DIR || join(tmpdir(), 'gateway-real-marketplace');
  const before = previousRun();
  const built = buildMarketplace(dir);
  log(
    `real-marketplace: ${built.packages} packages, ${built.plugins} plugins, ${built.files.size} files in ${dir}/marketplace`,
  );
  const started = performance.now();
  const { findings, all } = await vet(built.files);
  const elapsedMs = Math.round(performance.now() - started);
  const byRule: Record<string, number> = {};
  for (const f of findings) byRule[`${f.connector} / ${f.rule}`] = (byRule[`${f.connector} / ${f.rule}`] ?? 0) + 1;
  const report = {
    benchmark: 'real-marketplace',
    date: new Date().toISOString(),
    commit: head(),
    machine: machine(),
    packages: built.packages,
    plugins: built.plugins,
    files: built.files.size,
    elapsedMs,
    findingsPerConnector: all,
    blocking: findings.length,
    byRule,
    before,
    findings,
  };
  process.stdout.write(
    `\nreal-marketplace: ${findings.length} HIGH/CRITICAL findings over ${built.plugins} plugins, ${built.files.size} files` +
      `${before === null ? '' : ` (previous run: ${before.blocking})`}\n` +
      Object.entries(byRule)
        .map(([rule, n]) => `  ${rule}: ${n}`)
        .join('\n') +
      '\n\n',
  );
  const written = writeResultFiles('real-marketplace', report, markdown(report, findings, byRule, before));
  log(`real-marketplace: wrote ${written.json} and ${written.md}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  realMarketplaceBenchmark().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
