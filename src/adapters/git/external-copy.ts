import { git, GitError, gitText, spawnGit } from './git-process.ts';

/** The ref that keeps a resolved external plugin tree (and every object under it) in quarantine. */
export const externalPin = (tree: string) => `refs/quarantine/external/${tree}`;

/** The plugin trees already pinned in a quarantine repository. */
export async function pinnedTrees(quarantine: string): Promise<Set<string>> {
  const refs = await gitText(['-C', quarantine, 'for-each-ref', '--format=%(refname)', 'refs/quarantine/external/']);
  return new Set(
    refs
      .split('\n')
      .map((ref) => ref.slice('refs/quarantine/external/'.length))
      .filter((id) => /^[0-9a-f]{40}$/.test(id)),
  );
}

/**
 * Copies the trees, with every object they reach, from the external cache into quarantine (one pack,
 * streamed from `pack-objects` into `index-pack`) and pins each one: quarantine stays a complete,
 * ordinary repository, holding of an external repository exactly the plugin directories it serves.
 */
export async function copyTrees(cache: string, quarantine: string, trees: readonly string[], timeoutMs: number) {
  if (trees.length === 0) return;
  await pipeGit(
    ['-C', cache, 'pack-objects', '--revs', '--stdout', '--quiet'],
    ['-C', quarantine, 'index-pack', '--stdin'],
    `${trees.join('\n')}\n`,
    timeoutMs,
  );
  await git(['-C', quarantine, 'update-ref', '--stdin'], {
    input: trees.map((tree) => `update ${externalPin(tree)} ${tree}\n`).join(''),
  });
}

/** `git <from> | git <to>`, with `input` on the first one's stdin; rejects with the first failure. */
function pipeGit(from: readonly string[], to: readonly string[], input: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const producer = spawnGit(from);
    const consumer = spawnGit(to);
    const stderr = { producer: '', consumer: '' };
    producer.stderr!.on('data', (chunk: Buffer) => (stderr.producer += chunk.toString()));
    consumer.stderr!.on('data', (chunk: Buffer) => (stderr.consumer += chunk.toString()));
    consumer.stdout!.resume();
    producer.stdout!.pipe(consumer.stdin!);
    producer.stdin!.on('error', () => {});
    consumer.stdin!.on('error', () => {});
    producer.stdin!.end(input);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      producer.kill('SIGKILL');
      consumer.kill('SIGKILL');
    }, timeoutMs);
    const exits = [producer, consumer].map((child) => {
      child.on('error', () => {}); // a git that cannot start also closes, with no exit code
      return new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    });
    void Promise.all(exits).then(([producerCode, consumerCode]) => {
      clearTimeout(timer);
      if (producerCode === 0 && consumerCode === 0 && !timedOut) return resolve();
      const [which, code, text] =
        producerCode !== 0
          ? ['pack-objects', producerCode, stderr.producer]
          : ['index-pack', consumerCode, stderr.consumer];
      const why = timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${code}`;
      reject(new GitError(`git ${which} ${why}: ${text.trim().slice(0, 300)}`, code ?? null, text, timedOut));
    });
  });
}
