// Real marketplace content: the number of HIGH/CRITICAL findings before and after a change of the connectors,
// on the largest public marketplace a faithful local copy can be built of. The npm registry is the only public
// source this machine reaches, so the content is the Claude Code plugins, skills, agents, commands and hooks that
// npm packages ship: each pinned version (bench/real-marketplace-packages.ts) is `npm pack`ed into a scratch directory (checked against
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
// written per connector and rule, each with its line of text, to bench/results/real-marketplace.{json,md}, with the
// plugins and skills (SKILL.md files) the content holds, the findings per 1,000 skills, and each package's share.
// The previous results file, when there is one, is kept as the "before" figure in the new one.
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
import { isBlocking, pathOfLocation, type Finding } from '../src/domain/kernel/findings.ts';
import { scanInput } from '../test/support/scan-input.ts';
import { log } from './env.ts';
import { packages, type PinnedPackage } from './real-marketplace-packages.ts';
import { machine, writeResultFiles } from './report.ts';

export { packages };

type Json = Record<string, unknown>;
type Tree = Map<string, Buffer>;
const marketplacePath = '.claude-plugin/marketplace.json';
const slugOf = (name: string) => name.replace(/^@/, '').replace('/', '-');
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The package's tarball in `dir`, packed from the registry unless one with the pinned integrity is there. */
function tarball(pkg: PinnedPackage, dir: string): string {
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
function entriesOf(pkg: PinnedPackage, tree: Tree): Json[] {
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

/** One package's share of the marketplace. */
export type PackageShare = Readonly<{ name: string; version: string; plugins: number; skills: number; files: number }>;

const isSkill = (path: string): boolean => /(?:^|\/)SKILL\.md$/.test(path);

/** Builds the marketplace tree in memory (and under `dir/marketplace` to read), from the pinned packages. */
export function buildMarketplace(
  dir: string,
): Readonly<{ files: Tree; plugins: number; skills: number; packages: number; shares: PackageShare[] }> {
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  const files: Tree = new Map();
  const plugins: Json[] = [];
  const shares: PackageShare[] = [];
  for (const pkg of packages) {
    const tree = unpack(tarball(pkg, tarballs), join(dir, 'unpacked', slugOf(pkg.name)));
    for (const [path, content] of tree) files.set(`plugins/${slugOf(pkg.name)}/${path}`, content);
    const entries = entriesOf(pkg, tree);
    plugins.push(...entries);
    const skills = [...tree.keys()].filter(isSkill).length;
    shares.push({ name: pkg.name, version: pkg.version, plugins: entries.length, skills, files: tree.size });
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
  const skills = shares.reduce((n, share) => n + share.skills, 0);
  return { files, plugins: plugins.length, skills, packages: packages.length, shares };
}

/** HIGH/CRITICAL findings per 1,000 skills, to one decimal. */
export const perThousandSkills = (findings: number, skills: number): number =>
  skills === 0 ? 0 : Math.round((findings / skills) * 10000) / 10;

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

type Previous = Readonly<{
  date: string;
  commit: string;
  blocking: number;
  byRule: Record<string, number>;
  skills: number | null;
  perThousandSkills: number | null;
}>;

function previousRun(): Previous | null {
  if (!existsSync(resultsJson)) return null;
  const value = JSON.parse(readFileSync(resultsJson, 'utf8')) as Json;
  return typeof value.date === 'string' && typeof value.blocking === 'number'
    ? {
        date: value.date,
        commit: String(value.commit),
        blocking: value.blocking,
        byRule: (value.byRule ?? {}) as Record<string, number>,
        skills: typeof value.skills === 'number' ? value.skills : null,
        perThousandSkills: typeof value.perThousandSkills === 'number' ? value.perThousandSkills : null,
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

/** A package's share with the HIGH/CRITICAL findings in its files. */
type ShareRow = PackageShare & Readonly<{ blocking: number }>;

const sharesWithFindings = (shares: readonly PackageShare[], findings: readonly RealFinding[]): ShareRow[] =>
  shares.map((share) => {
    const prefix = `plugins/${slugOf(share.name)}/`;
    return { ...share, blocking: findings.filter((f) => f.location.startsWith(prefix)).length };
  });

type Report = Readonly<{
  date: string;
  commit: string;
  packages: number;
  plugins: number;
  skills: number;
  files: number;
  perThousandSkills: number;
  shares: readonly ShareRow[];
}>;

function markdown(
  report: Report,
  findings: readonly RealFinding[],
  byRule: Record<string, number>,
  before: Previous | null,
): string {
  const previous =
    before === null
      ? '.'
      : ` (previous run ${before.date}, commit ${before.commit}: ${before.blocking}` +
        (before.perThousandSkills === null
          ? ').'
          : `, ${before.perThousandSkills} per 1,000 skills over ${before.skills} skills).`);
  const lines = [
    '# Real marketplace content: HIGH/CRITICAL findings of the built-in connectors',
    '',
    `${report.date} · commit ${report.commit} · ${report.packages} npm packages, ${report.plugins} plugins, ` +
      `${report.skills} skills (SKILL.md files), ${report.files} files`,
    '',
    'Packages (exact versions, integrity-checked): ' + packages.map((p) => `${p.name}@${p.version}`).join(', ') + '.',
    'Built by bench/real-marketplace.ts; every built-in connector but `http` ran over the tree.',
    '',
    `**${findings.length} HIGH/CRITICAL findings, ${report.perThousandSkills} per 1,000 skills**${previous}`,
    '',
    '| connector / rule | findings | previous run |',
    '| --- | ---: | ---: |',
    ...Object.entries({ ...Object.fromEntries(Object.keys(before?.byRule ?? {}).map((k) => [k, 0])), ...byRule })
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([rule, n]) => `| ${rule} | ${n} | ${before === null ? '-' : (before.byRule[rule] ?? 0)} |`),
    '',
    '## Packages',
    '',
    '| package | plugins | skills | files | HIGH/CRITICAL |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...report.shares.map((s) => `| ${s.name}@${s.version} | ${s.plugins} | ${s.skills} | ${s.files} | ${s.blocking} |`),
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
    `real-marketplace: ${built.packages} packages, ${built.plugins} plugins, ${built.skills} skills, ` +
      `${built.files.size} files in ${dir}/marketplace`,
  );
  const started = performance.now();
  const { findings, all } = await vet(built.files);
  const elapsedMs = Math.round(performance.now() - started);
  const byRule: Record<string, number> = {};
  for (const f of findings) byRule[`${f.connector} / ${f.rule}`] = (byRule[`${f.connector} / ${f.rule}`] ?? 0) + 1;
  const perThousand = perThousandSkills(findings.length, built.skills);
  const shares = sharesWithFindings(built.shares, findings);
  const report = {
    benchmark: 'real-marketplace',
    date: new Date().toISOString(),
    commit: head(),
    machine: machine(),
    packages: built.packages,
    plugins: built.plugins,
    skills: built.skills,
    files: built.files.size,
    elapsedMs,
    findingsPerConnector: all,
    blocking: findings.length,
    perThousandSkills: perThousand,
    byRule,
    shares,
    before,
    findings,
  };
  process.stdout.write(
    `\nreal-marketplace: ${findings.length} HIGH/CRITICAL findings over ${built.plugins} plugins, ` +
      `${built.skills} skills, ${built.files.size} files: ${perThousand} per 1,000 skills` +
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
