import { randomUUID } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitText } from './git-process.ts';
import { decodePktLines, encodePktLine, flushPkt, textOf } from './pkt-line.ts';

/**
 * What the facade answers without a pack, kept in memory per published repository: its refs, the
 * protocol v0 and v2 advertisements and protocol v2 `ls-refs` answers. Every answer is what
 * `git upload-pack` itself produced for the same refs, replayed byte for byte.
 *
 * A view is valid while the repository's stamp file is unchanged. `GitStore.converge` rewrites the
 * stamp before and after it moves refs, so between the two writes every reader asks git afresh (as
 * without a cache) and after the second no reader keeps the old refs, in this process or any
 * replica sharing the data directory. A repository without a stamp is never cached.
 */
export type ServedView = Readonly<{
  refs: ReadonlyMap<string, string>;
  advertisement(version: 0 | 2): Promise<Buffer>;
  /** The answer to a protocol v2 `ls-refs` request body (after the command has been checked). */
  lsRefs(body: Buffer): Promise<Buffer>;
}>;

const stampFile = 'gateway-refs-stamp';
const maxLsRefsAnswers = 16;
const maxCachedBody = 4096;

const upload = (repo: string, version: 0 | 2, extra: readonly string[], input?: Buffer): Promise<Buffer> =>
  git(['upload-pack', '--stateless-rpc', ...extra, repo], {
    ...(version === 2 ? { env: { GIT_PROTOCOL: 'version=2' } } : {}),
    ...(input ? { input } : {}),
    maxOutputBytes: 64 * 1024 * 1024,
  });

// The protocol v2 capabilities the facade serves: git 2.39 also advertises `object-info`, which the facade
// refuses, and later versions may add commands (bundle-uri) it has never checked.
const servedCapability = /^(version 2|agent=.*|ls-refs(=.*)?|fetch(=.*)?|server-option|object-format=sha1)$/;

/** A v2 capability advertisement with only what the facade serves. */
export function servedCapabilities(advertisement: Buffer): Buffer {
  const kept = decodePktLines(advertisement).flatMap((line) => {
    const text = textOf(line);
    if (text === null) return line.kind === 'flush' ? [flushPkt] : [];
    return servedCapability.test(text) && line.kind === 'data' ? [encodePktLine(line.payload)] : [];
  });
  return Buffer.concat(kept);
}

const advertiseRefs = async (repo: string, version: 0 | 2): Promise<Buffer> => {
  const advertisement = await upload(repo, version, ['--advertise-refs']);
  return version === 2 ? servedCapabilities(advertisement) : advertisement;
};

/** Every ref of a repository (name → sha), HEAD excluded. */
export async function readRefs(repo: string): Promise<Map<string, string>> {
  if (!existsSync(join(repo, 'HEAD'))) return new Map();
  const text = await gitText(['-C', repo, 'for-each-ref', '--format=%(objectname) %(refname)']);
  const refs = new Map<string, string>();
  for (const line of text.split('\n').filter(Boolean)) {
    const [sha, name] = line.split(' ');
    if (sha && name) refs.set(name, sha);
  }
  return refs;
}

/** Marks a repository's refs as changed: every cached view of it, here or in a replica, is dropped. */
export function restamp(repo: string): void {
  const temporary = join(repo, `${stampFile}.${process.pid}.tmp`);
  writeFileSync(temporary, randomUUID());
  renameSync(temporary, join(repo, stampFile));
}

/** Stamps a repository that has no stamp yet (created, or from before stamps existed). */
export function ensureStamp(repo: string): void {
  if (!existsSync(join(repo, stampFile))) restamp(repo);
}

function memo<T>(compute: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => {
    if (!value) {
      value = compute();
      value.catch(() => {
        value = null;
      });
    }
    return value;
  };
}

function uncachedView(repo: string, refs: ReadonlyMap<string, string>): ServedView {
  return {
    refs,
    advertisement: (version) => advertiseRefs(repo, version),
    lsRefs: (body) => upload(repo, 2, [], body),
  };
}

function cachedView(repo: string, refs: ReadonlyMap<string, string>): ServedView {
  const advertisements = {
    0: memo(() => advertiseRefs(repo, 0)),
    2: memo(() => advertiseRefs(repo, 2)),
  };
  const answers = new Map<string, () => Promise<Buffer>>();
  return {
    refs,
    advertisement: (version) => advertisements[version](),
    lsRefs: (body) => {
      if (body.length > maxCachedBody) return upload(repo, 2, [], body);
      const key = body.toString('latin1');
      let answer = answers.get(key);
      if (!answer) {
        if (answers.size >= maxLsRefsAnswers) answers.delete(answers.keys().next().value as string);
        answer = memo(() => upload(repo, 2, [], body));
        answers.set(key, answer);
      }
      return answer();
    },
  };
}

export class ServedViews {
  private readonly views = new Map<string, { stamp: string; view: Promise<ServedView> }>();

  async of(repo: string): Promise<ServedView> {
    const stamp = await readFile(join(repo, stampFile), 'latin1').catch(() => null);
    if (stamp === null) return uncachedView(repo, await readRefs(repo));
    const known = this.views.get(repo);
    if (known && known.stamp === stamp) return known.view;
    const view = readRefs(repo).then((refs) => cachedView(repo, refs));
    this.views.set(repo, { stamp, view });
    view.catch(() => {
      if (this.views.get(repo)?.view === view) this.views.delete(repo);
    });
    return view;
  }
}
