// Git for the facade benchmark: a generated plugin marketplace of realistic shape, the plain
// `git http-backend` server (bench/git-http-server.ts, a child process) and the real git client.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { seededRandom } from './events.ts';

const run = promisify(execFile);
const benchDir = dirname(fileURLToPath(import.meta.url));

/** git as the benchmark runs it: no system or global configuration, no prompts, a fixed identity. */
export const gitEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.test',
  GIT_COMMITTER_NAME: 'Bench Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.test',
});

export async function gitIn(cwd: string, home: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: gitEnv(home), maxBuffer: 256 * 1024 * 1024 })).stdout.trim();
}

export type MarketplaceShape = Readonly<{
  plugins: number;
  filesPerPlugin: number;
  commits: number;
  seed: number;
  /** The files of one plugin (default: pluginFiles below, which every benchmark but vetting uses). */
  content?: PluginContent;
}>;

/** The files of plugin `plugin`, `count` of them, by path; a text starting with `#!` is committed executable when `executable` says so. */
export type PluginContent = ((
  plugin: string,
  count: number,
  text: TextMaker,
  random: () => number,
) => Record<string, string>) & { executable?: boolean };

// Plugin content as such repositories hold it: skill and command markdown, agent prompts, hook
// JSON, helper scripts. The text is drawn from a word list (compresses like prose, about 3:1).
const syllables = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ten',
  'sor',
  'vel',
  'dun',
  'pri',
  'gal',
  'so',
  'ne',
  'tra',
  'bel',
  'cor',
  'fin',
  'ge',
  'hol',
  'ix',
  'jun',
];
const common = [
  'the',
  'a',
  'to',
  'of',
  'and',
  'in',
  'for',
  'is',
  'with',
  'when',
  'use',
  'this',
  'skill',
  'file',
  'run',
  'check',
  'return',
  'request',
  'repository',
  'review',
  'test',
  'build',
  'plugin',
  'agent',
  'command',
  'output',
  'input',
  'should',
  'must',
  'never',
];

function vocabulary(random: () => number): string[] {
  const words = [...common];
  while (words.length < 600) {
    const n = 1 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += syllables[Math.floor(random() * syllables.length)];
    words.push(word);
  }
  return words;
}

/** Keywords of Python, JavaScript and the shell: a generated script never names a variable or function so. */
const reserved = new Set(
  (
    'and as assert async await break case catch class const continue def del do done elif else esac except ' +
    'export extends false fi finally for from function global if import in is lambda let local new none not ' +
    'null of or pass raise return select static super switch then this throw true try typeof until var void ' +
    'while with yield'
  ).split(' '),
);

export class TextMaker {
  private readonly words: string[];
  private readonly random: () => number;
  constructor(random: () => number) {
    this.random = random;
    this.words = vocabulary(random);
  }

  word(): string {
    // Zipf-like: low indexes far more often.
    return this.words[Math.floor(this.words.length * this.random() ** 2.5)]!;
  }

  /** A word a script can name something with: never a keyword of Python, JavaScript or the shell. */
  identifier(): string {
    const word = this.word();
    return reserved.has(word) ? `${word}_v` : word;
  }

  sentence(): string {
    const n = 6 + Math.floor(this.random() * 14);
    const words = Array.from({ length: n }, () => this.word());
    words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
    return `${words.join(' ')}.`;
  }

  markdown(bytes: number, title: string): string {
    let out = `# ${title}\n\n`;
    while (out.length < bytes) {
      const r = this.random();
      if (r < 0.15) out += `## ${this.sentence().slice(0, 40)}\n\n`;
      else if (r < 0.35)
        out += `${Array.from({ length: 3 + Math.floor(this.random() * 4) }, () => `- ${this.sentence()}`).join('\n')}\n\n`;
      else if (r < 0.45)
        out += `\`\`\`bash\n${this.word()} --${this.word()} ${this.word()}/${this.word()}.json\n\`\`\`\n\n`;
      else out += `${Array.from({ length: 2 + Math.floor(this.random() * 4) }, () => this.sentence()).join(' ')}\n\n`;
    }
    return out;
  }

  script(bytes: number, language: 'py' | 'ts' | 'js' | 'sh'): string {
    let out =
      language === 'sh'
        ? '#!/usr/bin/env bash\nset -euo pipefail\n\n'
        : language === 'py'
          ? 'import json\nimport sys\n\n'
          : "import { readFileSync } from 'node:fs';\n\n";
    while (out.length < bytes) {
      const name = `${this.identifier()}_${this.identifier()}`;
      if (language === 'py')
        out += `def ${name}(${this.identifier()}, ${this.identifier()}):\n    """${this.sentence()}"""\n    if ${this.identifier()} is None:\n        return ${this.identifier()}\n    return [${this.identifier()} for ${this.identifier()} in ${this.identifier()}]\n\n`;
      else if (language === 'ts')
        out += `export function ${name}(${this.identifier()}: string): string[] {\n  // ${this.sentence()}\n  return ${this.identifier()}.split('${this.word()}').map((x) => x.trim());\n}\n\n`;
      else if (language === 'js')
        out += `export function ${name}(${this.identifier()}) {\n  // ${this.sentence()}\n  return ${this.identifier()}.split('${this.word()}').map((x) => x.trim());\n}\n\n`;
      else
        out += `${name}() {\n  # ${this.sentence()}\n  local ${this.identifier()}="$1"\n  echo "${this.sentence()}"\n}\n\n`;
    }
    return out;
  }
}

/** Sizes of a few KiB: 1–8 KiB, most around 2–4 KiB. */
export const sizeOf = (random: () => number): number => Math.round(1024 * (1 + 7 * random() ** 2));

function pluginFiles(plugin: string, count: number, text: TextMaker, random: () => number): Record<string, string> {
  const files: Record<string, string> = {
    [`plugins/${plugin}/.claude-plugin/plugin.json`]: `${JSON.stringify(
      {
        name: plugin,
        version: '1.4.2',
        description: text.sentence(),
        author: { name: 'Bench Upstream' },
        keywords: [text.word(), text.word()],
      },
      null,
      2,
    )}\n`,
    [`plugins/${plugin}/README.md`]: text.markdown(sizeOf(random), plugin),
    [`plugins/${plugin}/hooks/hooks.json`]: `${JSON.stringify(
      {
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: `\${CLAUDE_PLUGIN_ROOT}/scripts/${text.word()}.sh` }],
            },
          ],
        },
      },
      null,
      2,
    )}\n`,
  };
  let i = 0;
  while (Object.keys(files).length < count) {
    const kind = i % 6;
    const name = `${text.word()}-${text.word()}-${i}`;
    if (kind === 0 || kind === 1) {
      files[`plugins/${plugin}/skills/${name}/SKILL.md`] =
        `---\nname: ${name}\ndescription: ${text.sentence()}\n---\n\n${text.markdown(sizeOf(random), name)}`;
    } else if (kind === 2) {
      files[`plugins/${plugin}/commands/${name}.md`] =
        `---\ndescription: ${text.sentence()}\n---\n\n${text.markdown(sizeOf(random), name)}`;
    } else if (kind === 3) {
      files[`plugins/${plugin}/agents/${name}.md`] =
        `---\nname: ${name}\ndescription: ${text.sentence()}\ntools: Read, Grep, Glob\n---\n\n${text.markdown(sizeOf(random), name)}`;
    } else {
      const language = (['py', 'ts', 'sh'] as const)[i % 3]!;
      files[`plugins/${plugin}/scripts/${name}.${language}`] = text.script(sizeOf(random), language);
    }
    i++;
  }
  return files;
}

export type BuiltRepo = Readonly<{
  bare: string;
  tip: string;
  files: number;
  bytes: number;
  commits: number;
  packBytes: number;
}>;

/**
 * A marketplace repository of `plugins` × `filesPerPlugin` files plus its manifest, in `commits`
 * commits (the first adds everything, each later one edits about 5 % of the files), pushed to the
 * bare repository `<root>/<name>.git` and repacked, as a maintained upstream would be.
 */
export async function buildMarketplaceRepo(
  root: string,
  name: string,
  shape: MarketplaceShape,
  home: string,
): Promise<BuiltRepo> {
  const random = seededRandom(shape.seed);
  const text = new TextMaker(random);
  const plugins = Array.from({ length: shape.plugins }, (_, i) => `${text.word()}-${text.word()}-${i}`.slice(0, 60));
  const files: Record<string, string> = {
    '.claude-plugin/marketplace.json': `${JSON.stringify(
      {
        name,
        owner: { name: 'Bench Upstream' },
        description: `${name}: a generated benchmark marketplace`,
        plugins: plugins.map((plugin) => ({
          name: plugin,
          source: `./plugins/${plugin}`,
          description: text.sentence(),
        })),
      },
      null,
      2,
    )}\n`,
  };
  const content = shape.content ?? pluginFiles;
  for (const plugin of plugins) Object.assign(files, content(plugin, shape.filesPerPlugin, text, random));

  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare], { env: gitEnv(home) });
  await run('git', ['init', '--quiet', '--initial-branch=main', work], { env: gitEnv(home) });
  const write = (changed: Record<string, string>) => {
    for (const [path, content] of Object.entries(changed)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
      if (shape.content?.executable === true && content.startsWith('#!')) chmodSync(join(work, path), 0o755);
    }
  };
  write(files);
  await gitIn(work, home, 'add', '-A');
  await gitIn(work, home, 'commit', '--quiet', '-m', 'Initial marketplace');
  const paths = Object.keys(files).filter((path) => !path.endsWith('.json'));
  for (let c = 1; c < shape.commits; c++) {
    const changed: Record<string, string> = {};
    for (let k = 0; k < Math.ceil(paths.length * 0.05); k++) {
      const path = paths[Math.floor(random() * paths.length)]!;
      changed[path] = `${files[path]!}\n${text.markdown(400 + Math.floor(random() * 1200), `Update ${c}`)}`;
      files[path] = changed[path];
    }
    write(changed);
    await gitIn(work, home, 'add', '-A');
    await gitIn(work, home, 'commit', '--quiet', '-m', `Update ${c}: ${text.sentence()}`);
  }
  await gitIn(work, home, 'push', '--quiet', bare, 'HEAD:refs/heads/main');
  await gitIn(bare, home, 'repack', '-a', '-d', '--quiet');
  const tip = await gitIn(work, home, 'rev-parse', 'HEAD');
  const bytes = Object.values(files).reduce((sum, content) => sum + Buffer.byteLength(content), 0);
  const packBytes = Number(/size-pack: (\d+)/.exec(await gitIn(bare, home, 'count-objects', '-v'))?.[1] ?? 0) * 1024;
  return { bare, tip, files: Object.keys(files).length, bytes, commits: shape.commits, packBytes };
}

export type GitHttpServer = Readonly<{
  baseUrl: string;
  pid: number;
  stats(): Promise<Record<string, number>>;
  reset(): Promise<void>;
  close(): Promise<void>;
}>;

/** Starts bench/git-http-server.ts serving the bare repositories under `projectRoot`. */
export async function startGitHttpServer(projectRoot: string): Promise<GitHttpServer> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(benchDir, 'git-http-server.ts')], {
    cwd: join(benchDir, '..'),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_GIT_PROJECT_ROOT: projectRoot },
  });
  const waiting = new Map<string, Array<(message: unknown) => void>>();
  child.on('message', (message: { type?: string }) => waiting.get(message.type ?? '')?.shift()?.(message));
  const next = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      waiting.set(type, [...(waiting.get(type) ?? []), resolve as (message: unknown) => void]);
    });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await Promise.race([
    next<{ port: number }>('ready'),
    exit.then(() => {
      throw new Error('the git http server exited during start');
    }),
  ]);
  return {
    baseUrl: `http://127.0.0.1:${ready.port}`,
    pid: child.pid!,
    async stats() {
      const answer = next<{ requests: Record<string, number> }>('stats');
      child.send({ cmd: 'stats' });
      return (await answer).requests;
    },
    async reset() {
      const answer = next<unknown>('reset');
      child.send({ cmd: 'reset' });
      await answer;
    },
    async close() {
      child.send({ cmd: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** The real git client, protocol v2, the token as the HTTP Basic password in an extra header. */
export function gitClient(home: string, token: string) {
  const auth = ['-c', `http.extraHeader=Authorization: Basic ${Buffer.from(`bench:${token}`).toString('base64')}`];
  // Client-side housekeeping is not what is measured: no auto-maintenance after fetches.
  const common = ['-c', 'protocol.version=2', '-c', 'maintenance.auto=false', '-c', 'gc.auto=0'];
  const timed = (args: string[], cwd: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn('git', [...common, ...auth, ...args], {
        cwd,
        env: gitEnv(home),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4000) stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => {
        const ms = performance.now() - started;
        if (code === 0) resolve(ms);
        else reject(new Error(`git ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
      });
    });
  return {
    /** `git clone` into `dir`; resolves with the wall time in ms. */
    clone: (url: string, dir: string, extra: string[] = []) => timed(['clone', '--quiet', ...extra, url, dir], home),
    /** `git fetch` in an existing clone; resolves with the wall time in ms. */
    fetch: (dir: string) => timed(['fetch', '--quiet', 'origin'], dir),
  };
}
