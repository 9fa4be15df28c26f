import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { git } from '../../../src/adapters/git/git-process.ts';
import { GitStore } from '../../../src/adapters/git/git-store.ts';
import { restamp } from '../../../src/adapters/git/served-view.ts';
import { desiredRefs } from '../../../src/domain/publication/desired-refs.ts';
import { marketplaceFiles, serveUpstream } from '../../support/upstream.ts';

// The facade answers info/refs and ls-refs from a view of the published repository kept in memory
// (decision 62). These tests hold it to two promises: every answer is byte for byte what
// `git upload-pack` says for the repository as it is, and no replica keeps a view past a converge.

// A protocol v2 ls-refs request as git 2.39.5 sends it on clone and fetch (test/unit/adapters/git/pkt-line.test.ts).
const lsRefsBody = Buffer.from(
  '0014command=ls-refs\n0014agent=git/2.39.50016object-format=sha100010009peel\n000csymrefs\n000bunborn\n' +
    '0014ref-prefix HEAD\n001bref-prefix refs/heads/\n001aref-prefix refs/tags/\n0000',
  'latin1',
);

const gitSays = (repo: string, version: 0 | 2, args: readonly string[], input?: Buffer) =>
  git(['upload-pack', '--stateless-rpc', ...args, repo], {
    ...(version === 2 ? { env: { GIT_PROTOCOL: 'version=2' } } : {}),
    ...(input ? { input } : {}),
  });

t.test(
  'a view answers what upload-pack answers, and a converge in one process reaches a view in another',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'gateway-served-view-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const writer = new GitStore(root);
    const replica = new GitStore(root);
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    const id = 7;
    const published = writer.publishedPath(id);

    const first = (await writer.fetchUpstream(id, upstream.url)).sha;
    await writer.converge(id, desiredRefs([first], first));
    const before = await replica.servedView(id);
    t.strictSame(Object.fromEntries(before.refs), { 'refs/heads/main': first, [`refs/snapshots/${first}`]: first });
    t.same(
      await before.advertisement(0),
      await gitSays(published, 0, ['--advertise-refs']),
      'v0 advertisement as git writes it',
    );
    // Git 2.39 advertises object-info, which the facade refuses: the served advertisement drops that line.
    const gitV2 = (await gitSays(published, 2, ['--advertise-refs'])).toString('latin1');
    t.match(gitV2, /0010object-info\n/, 'git itself advertises object-info');
    t.same(
      await before.advertisement(2),
      Buffer.from(gitV2.replace('0010object-info\n', ''), 'latin1'),
      'v2 capability advertisement as git writes it, without object-info',
    );
    t.same(
      await before.lsRefs(lsRefsBody),
      await gitSays(published, 2, [], lsRefsBody),
      'ls-refs answer as git writes it',
    );
    t.ok((await before.lsRefs(lsRefsBody)).includes(`${first} refs/heads/main`), 'the answer names the served tip');

    const second = await upstream.commit({ 'notes.md': 'second\n' });
    t.equal((await writer.fetchUpstream(id, upstream.url)).sha, second);
    await writer.converge(id, desiredRefs([second], second));
    const after = await replica.servedView(id);
    t.strictSame(
      Object.fromEntries(after.refs),
      { 'refs/heads/main': second, [`refs/snapshots/${second}`]: second },
      'the replica sees the new refs',
    );
    const advertised = (await after.advertisement(0)).toString('latin1');
    t.ok(advertised.includes(second) && !advertised.includes(first), 'the v0 advertisement moved with them');
    const answer = (await after.lsRefs(lsRefsBody)).toString('latin1');
    t.ok(answer.includes(second) && !answer.includes(first), 'and so did the ls-refs answer');
    t.same(await after.lsRefs(lsRefsBody), await gitSays(published, 2, [], lsRefsBody));
  },
);

t.test(
  'a repository changed without a restamp keeps its view until restamped; one without a stamp is never cached',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'gateway-served-view-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    const store = new GitStore(root);
    const upstream = await serveUpstream(t, marketplaceFiles('acme', ['alpha']));
    const id = 3;
    const published = store.publishedPath(id);
    const sha = (await store.fetchUpstream(id, upstream.url)).sha;
    await store.converge(id, desiredRefs([sha], sha));
    t.equal((await store.servedView(id)).refs.get('refs/heads/main'), sha);

    // Behind the gateway's back (startup reconciliation repairs this; a running gateway trusts its stamp).
    await git(['-C', published, 'update-ref', '-d', 'refs/heads/main']);
    t.equal((await store.servedView(id)).refs.get('refs/heads/main'), sha, 'answered from memory');
    restamp(published);
    t.equal((await store.servedView(id)).refs.get('refs/heads/main'), undefined, 'a restamp drops the view');

    rmSync(join(published, 'gateway-refs-stamp'));
    await git(['-C', published, 'update-ref', 'refs/heads/main', sha]);
    t.equal((await store.servedView(id)).refs.get('refs/heads/main'), sha, 'without a stamp, refs are read every time');
    await git(['-C', published, 'update-ref', '-d', 'refs/heads/main']);
    t.equal((await store.servedView(id)).refs.get('refs/heads/main'), undefined);
  },
);
