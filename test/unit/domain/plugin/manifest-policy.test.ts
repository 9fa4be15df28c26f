import t from 'tap';
import {
  externalRoot,
  externalSourcesOverLimit,
  manifestPath,
  readManifest,
  relativeSourceProblem,
  rewriteExternalSources,
  unresolvedSources,
} from '../../../../src/domain/plugin/manifest-policy.ts';

// Decision 48 (manifest policy): every violation gives a `rejected` snapshot; a manifest rejected by
// policy counts as a succeeded ingest (docs/marketplaces.md), so these are captures, not failures.
const manifest = (plugins: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'acme', owner: { name: 'Acme' }, ...extra, plugins });
const plugin = (name: unknown, source: unknown) => ({ name, source, description: 'a plugin' });

const violationOf = (text: string | null): string => {
  const reading = readManifest(text);
  return reading.ok ? '<no violation>' : reading.violation;
};

t.test('the manifest lives at .claude-plugin/marketplace.json', async (t) => {
  t.equal(manifestPath, '.claude-plugin/marketplace.json');
});

t.test('clean manifests are read: name, description, plugins with relative sources', async (t) => {
  const text = manifest([plugin('alpha', './plugins/alpha'), plugin('beta', './plugins/beta/')], {
    description: 'tools',
  });
  const reading = readManifest(text);
  t.match(reading, { ok: true, name: 'acme', description: 'tools', externals: [], text });
  t.strictSame(reading.ok ? reading.plugins : null, [
    { name: 'alpha', source: './plugins/alpha' },
    { name: 'beta', source: './plugins/beta/' },
  ]);
  const empty = readManifest(manifest([]));
  t.match(empty, { ok: true, name: 'acme', description: null }, 'an empty plugins array');
  t.strictSame(empty.ok ? [empty.plugins, empty.externals] : null, [[], []]);
  t.match(
    readManifest(manifest([plugin('root', './')])),
    { ok: true, plugins: [{ name: 'root', source: './' }] },
    '"./" is the marketplace root',
  );
  t.match(
    readManifest(manifest([plugin('dotted', './plugins/a..b/./c')])),
    { ok: true },
    '".." inside a segment name is not a parent segment',
  );
  t.match(
    readManifest(manifest([], { metadata: { description: 'legacy' } })),
    { ok: true, description: 'legacy' },
    'metadata.description (legacy)',
  );
  t.match(
    readManifest(manifest([], { description: 'top', metadata: { description: 'legacy' } })),
    { ok: true, description: 'top' },
    'the top-level description wins',
  );
  t.match(
    readManifest(JSON.stringify({ plugins: [] })),
    { ok: true, name: null, description: null },
    'name and description are optional here',
  );
  t.match(
    readManifest(
      manifest([{ ...plugin('alpha', './plugins/alpha'), version: '1.0.0', strict: false, skills: ['./skills'] }]),
    ),
    { ok: true },
    'entries may carry any other plugin field',
  );
});

t.test('a missing manifest is a violation', async (t) => {
  t.match(violationOf(null), /\.claude-plugin\/marketplace\.json is missing/);
});

t.test('an unparsable manifest is a violation', async (t) => {
  t.match(violationOf('{"plugins": ['), /is not valid JSON/);
  t.match(violationOf(''), /is not valid JSON/);
});

t.test('a manifest that is not a JSON object is a violation', async (t) => {
  for (const text of ['[]', 'null', '"acme"', '42']) t.match(violationOf(text), /is not a JSON object/, text);
});

t.test('no plugins array is a violation', async (t) => {
  t.match(violationOf(JSON.stringify({ name: 'acme' })), /has no plugins array/, 'absent');
  t.match(violationOf(JSON.stringify({ plugins: { alpha: './a' } })), /has no plugins array/, 'an object');
  t.match(violationOf(JSON.stringify({ plugins: null })), /has no plugins array/, 'null');
});

t.test('an entry that is not an object is a violation', async (t) => {
  t.match(violationOf(manifest(['./plugins/alpha'])), /plugins\[0\] is not an object/);
  t.match(violationOf(manifest([plugin('alpha', './a'), null])), /plugins\[1\] is not an object/);
});

t.test('an entry without a name is a violation', async (t) => {
  t.match(violationOf(manifest([{ source: './plugins/alpha' }])), /plugins\[0\] has no name/, 'absent');
  t.match(violationOf(manifest([plugin('  ', './plugins/alpha')])), /plugins\[0\] has no name/, 'blank');
  t.match(violationOf(manifest([plugin(7, './plugins/alpha')])), /plugins\[0\] has no name/, 'not a string');
});

t.test('an entry without a source is a violation', async (t) => {
  t.match(violationOf(manifest([{ name: 'alpha' }])), /plugin 'alpha' has no source/, 'absent');
  t.match(violationOf(manifest([plugin('alpha', null)])), /plugin 'alpha' has no source/, 'null');
  t.match(violationOf(manifest([plugin('alpha', 42)])), /plugin 'alpha' has no source/, 'a number');
});

t.test('a duplicate plugin name is a violation', async (t) => {
  t.match(
    violationOf(manifest([plugin('alpha', './a'), plugin('beta', './b'), plugin('alpha', './c')])),
    /plugin name 'alpha' is listed twice/,
  );
});

t.test('a relative source that does not start with ./ is a violation', async (t) => {
  for (const source of [
    'plugins/alpha',
    '/etc/passwd',
    '../escape',
    '.',
    '',
    'https://example.test/x.git',
    '.plugins',
  ]) {
    t.match(
      violationOf(manifest([plugin('alpha', source)])),
      /^plugin 'alpha': relative plugin sources start with '\.\/'/,
      JSON.stringify(source),
    );
  }
});

t.test('a relative source with a .. segment is a violation ("escapes the repository")', async (t) => {
  for (const source of ['./..', './../escape', './plugins/../../escape', './plugins/..', './a/../b']) {
    t.match(
      violationOf(manifest([plugin('alpha', source)])),
      /^plugin 'alpha': plugin source '.*' escapes the repository$/,
      source,
    );
  }
});

t.test('a relative source with a backslash or NUL is a violation', async (t) => {
  t.match(violationOf(manifest([plugin('alpha', './plugins\\..\\..\\x')])), /is not a plain path/);
  t.match(violationOf(manifest([plugin('alpha', './plugins/a\u0000')])), /is not a plain path/);
});

t.test('npm, archive and command sources are violations (cannot be pinned to a commit)', async (t) => {
  for (const source of [
    { source: 'npm', package: '@acme/alpha' },
    { source: 'archive', url: 'https://example.test/a.zip' },
    { source: 'command', command: 'echo ./a' },
  ]) {
    t.match(
      violationOf(manifest([plugin('alpha', source)])),
      new RegExp(`^plugin 'alpha' has a source of type '${source.source}' that the gateway cannot pin to a commit$`),
      source.source,
    );
  }
  t.match(
    violationOf(manifest([plugin('alpha', {})])),
    /has a source of type 'undefined'/,
    'an object source without a kind',
  );
  t.match(
    violationOf(manifest([plugin('alpha', { source: 'pip', package: 'x' })])),
    /has a source of type 'pip'/,
    'an unknown kind',
  );
});

t.test(
  'decision 58: external git sources (github, url, git-subdir) are read for resolution, not refused',
  async (t) => {
    const sha = 'a'.repeat(40);
    const reading = readManifest(
      manifest([
        plugin('local', './plugins/local'),
        plugin('gh', { source: 'github', repo: 'acme/alpha' }),
        plugin('gh-pinned', { source: 'github', repo: 'acme/beta.git', ref: 'v1', sha }),
        plugin('by-url', { source: 'url', url: 'https://git.example.test/gamma.git', ref: 'release/2' }),
        plugin('sub', { source: 'git-subdir', url: 'acme/mono', path: './plugins/delta/' }),
        plugin('sub-url', { source: 'git-subdir', url: 'https://git.example.test/mono.git', path: 'a/b' }),
      ]),
    );
    t.match(reading, { ok: true, plugins: [{ name: 'local', source: './plugins/local' }] });
    t.strictSame(reading.ok ? reading.externals : null, [
      { name: 'gh', kind: 'github', url: 'https://github.com/acme/alpha.git', ref: null, sha: null, path: '' },
      { name: 'gh-pinned', kind: 'github', url: 'https://github.com/acme/beta.git', ref: 'v1', sha, path: '' },
      { name: 'by-url', kind: 'url', url: 'https://git.example.test/gamma.git', ref: 'release/2', sha: null, path: '' },
      {
        name: 'sub',
        kind: 'git-subdir',
        url: 'https://github.com/acme/mono.git',
        ref: null,
        sha: null,
        path: 'plugins/delta',
      },
      {
        name: 'sub-url',
        kind: 'git-subdir',
        url: 'https://git.example.test/mono.git',
        ref: null,
        sha: null,
        path: 'a/b',
      },
    ]);
  },
);

t.test('malformed external sources are violations', async (t) => {
  const cases: Array<[string, unknown, RegExp, string?]> = [
    ['github without owner/name', { source: 'github', repo: 'alpha' }, /a github source needs repo as owner\/name/],
    [
      'github with a URL as repo',
      { source: 'github', repo: 'https://github.com/acme/alpha' },
      /needs repo as owner\/name/,
    ],
    ['url without url', { source: 'url' }, /a url source needs a url/],
    ['git-subdir without url', { source: 'git-subdir', path: 'x' }, /a git-subdir source needs a url/],
    ['git-subdir without path', { source: 'git-subdir', url: 'acme/mono' }, /a git-subdir source needs a path/],
    ['git-subdir with a blank path', { source: 'git-subdir', url: 'acme/mono', path: '  ' }, /needs a path/],
    [
      'git-subdir path escaping',
      { source: 'git-subdir', url: 'acme/mono', path: 'plugins/../../x' },
      /path 'plugins\/\.\.\/\.\.\/x' escapes the repository/,
    ],
    [
      'git-subdir path with a backslash',
      { source: 'git-subdir', url: 'acme/mono', path: 'a\\b' },
      /escapes the repository/,
    ],
    [
      'an abbreviated sha',
      { source: 'github', repo: 'acme/alpha', sha: 'abc1234' },
      /sha 'abc1234' is not a full 40-character commit id/,
    ],
    [
      'an upper-case sha',
      { source: 'github', repo: 'acme/alpha', sha: 'A'.repeat(40) },
      /is not a full 40-character commit id/,
    ],
    [
      'a ref starting with -',
      { source: 'url', url: 'https://x.test/a.git', ref: '--upload-pack=evil' },
      /ref '--upload-pack=evil' is not a valid ref name/,
    ],
    ['a ref with ..', { source: 'url', url: 'https://x.test/a.git', ref: 'a..b' }, /is not a valid ref name/],
    ['a ref with a space', { source: 'url', url: 'https://x.test/a.git', ref: 'a b' }, /is not a valid ref name/],
    ['an unsafe plugin name', { source: 'github', repo: 'acme/alpha' }, /needs a plain name/, '../alpha'],
  ];
  for (const [name, source, violation, pluginName = 'alpha'] of cases) {
    t.match(violationOf(manifest([plugin(pluginName, source)])), violation, name);
  }
});

t.test('no fixed cap: the limit of external sources is gateway.ingest.max-external-sources', async (t) => {
  // No fixed cap of 50; a configurable limit (gateway.ingest.max-external-sources, default 1,000)
  const externals = (n: number) =>
    Array.from({ length: n }, (_, i) => plugin(`p${i}`, { source: 'github', repo: `acme/p${i}` }));
  const reading = readManifest(manifest(externals(286)));
  t.equal(reading.ok ? reading.externals.length : -1, 286, 'the manifest policy reads 286 external sources');
  t.equal(externalSourcesOverLimit(1000, 1000), null, 'the limit itself is fine');
  t.match(
    externalSourcesOverLimit(1001, 1000),
    /^1001 external plugin sources; at most 1000 are resolved \(gateway\.ingest\.max-external-sources\)$/,
  );
});

t.test('rewriteExternalSources leaves withheld plugins out of the composite manifest', async (t) => {
  const text = manifest([
    plugin('local', './plugins/local'),
    plugin('gone', { source: 'url', url: 'https://x.test/gone.git' }),
    plugin('gh', { source: 'github', repo: 'acme/alpha' }),
  ]);
  const rewritten = JSON.parse(rewriteExternalSources(text, [{ name: 'gh' }], ['gone'])) as {
    plugins: Array<{ name: string; source: unknown }>;
  };
  t.strictSame(
    rewritten.plugins.map((p) => [p.name, p.source]),
    [
      ['local', './plugins/local'],
      ['gh', `./${externalRoot}/gh`],
    ],
    'the served marketplace.json lists only resolved plugins (and local ones)',
  );
});

t.test('unresolvedSources: in entry order, the source as written and the line of the entry', async (t) => {
  const text = JSON.stringify(
    {
      name: 'acme',
      plugins: [
        plugin('b', { source: 'url', url: 'https://x.test/b.git' }),
        plugin('local', './plugins/local'),
        plugin('a', { source: 'git-subdir', url: 'acme/tools', path: 'plugins/a' }),
      ],
    },
    null,
    2,
  );
  const lines = text.split('\n');
  const lineOf = (name: string) => lines.findIndex((l) => l.includes(`"name": "${name}"`)); // the `{` is the line before
  const found = unresolvedSources(text, [
    { plugin: 'a', reason: 'no directory', nextStep: 'fix the path' },
    { plugin: 'b', reason: 'unreachable', nextStep: 'check the URL' },
  ]);
  t.strictSame(found, [
    {
      plugin: 'b',
      reason: 'unreachable',
      nextStep: 'check the URL',
      source: { source: 'url', url: 'https://x.test/b.git' },
      line: lineOf('b'),
    },
    {
      plugin: 'a',
      reason: 'no directory',
      nextStep: 'fix the path',
      source: { source: 'git-subdir', url: 'acme/tools', path: 'plugins/a' },
      line: lineOf('a'),
    },
  ]);
  t.strictSame(unresolvedSources(text, []), []);
});

t.test(
  'rewriteExternalSources points each resolved external entry at its copy in the tree, and nothing else',
  async (t) => {
    const text = manifest(
      [plugin('local', './plugins/local'), plugin('gh', { source: 'github', repo: 'acme/alpha' })],
      { description: 'tools' },
    );
    const reading = readManifest(text);
    if (!reading.ok) throw new Error(reading.violation);
    const rewritten = JSON.parse(rewriteExternalSources(text, reading.externals)) as {
      description: string;
      plugins: Array<{ name: string; source: unknown; description: string }>;
    };
    t.strictSame(
      rewritten.plugins.map((p) => [p.name, p.source]),
      [
        ['local', './plugins/local'],
        ['gh', `./${externalRoot}/gh`],
      ],
    );
    t.equal(rewritten.description, 'tools', 'other fields are kept');
    t.equal(rewritten.plugins[1]?.description, 'a plugin');
    t.match(
      readManifest(rewriteExternalSources(text, reading.externals)),
      { ok: true, externals: [] },
      'the rewritten manifest reads clean, with no externals left',
    );
  },
);

t.test('the first violation is reported, in entry order', async (t) => {
  t.match(
    violationOf(manifest([plugin('alpha', './a'), plugin('beta', '../b'), plugin('gamma', { source: 'npm' })])),
    /^plugin 'beta':/,
  );
  t.match(
    violationOf(manifest([plugin('alpha', { source: 'npm' }), plugin('alpha', './a')])),
    /type 'npm'/,
    'before a later duplicate',
  );
});

t.test('relativeSourceProblem: null for a source inside the repository, a reason otherwise', async (t) => {
  t.equal(relativeSourceProblem('./plugins/alpha'), null);
  t.equal(relativeSourceProblem('./'), null);
  t.match(relativeSourceProblem('plugins/alpha'), /start with '\.\/'/);
  t.match(relativeSourceProblem('./x/../..'), /escapes the repository/);
});
