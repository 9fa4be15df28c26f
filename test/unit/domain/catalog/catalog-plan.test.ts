import t from 'tap';
import {
  catalogFiles,
  catalogFormat,
  catalogPluginPath,
  isCurrent,
  newlyWithheld,
  planCatalog,
  readCatalogRecord,
  type ServedManifest,
} from '../../../../src/domain/catalog/catalog-plan.ts';

const [a, b, c] = ['a', 'b', 'c'].map((d) => d.repeat(40)) as [string, string, string];
const manifest = (plugins: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'x', owner: { name: 'o' }, plugins, ...extra });
const served = (
  marketplace: string,
  sha: string,
  plugins: unknown[],
  extra?: Record<string, unknown>,
): ServedManifest => ({ marketplace, sha, manifest: manifest(plugins, extra) });

t.test(
  'every plugin of every served marketplace is a candidate, placed under plugins/<marketplace>/<plugin>, in name order',
  async (t) => {
    const plan = planCatalog([
      served('studio', b, [{ name: 'gamma', source: './plugins/gamma', description: 'g' }]),
      served('acme', a, [
        { name: 'beta', source: './plugins/beta' },
        { name: 'alpha', source: './' },
      ]),
    ]);
    t.strictSame(
      plan.constituents,
      [
        { marketplace: 'acme', sha: a },
        { marketplace: 'studio', sha: b },
      ],
      'constituents in marketplace name order',
    );
    t.strictSame(
      plan.candidates.map((p) => [p.name, p.marketplace, p.root, catalogPluginPath(p)]),
      [
        ['alpha', 'acme', '', 'plugins/acme/alpha'],
        ['beta', 'acme', 'plugins/beta', 'plugins/acme/beta'],
        ['gamma', 'studio', 'plugins/gamma', 'plugins/studio/gamma'],
      ],
      'a plugin at the marketplace root ("./") is a candidate too',
    );
    t.strictSame(plan.collisions, []);
    t.strictSame(plan.skipped, []);
  },
);

t.test(
  'spec, Catalog revision: a name claimed by two marketplaces, or twice within one, is published for no claimant',
  async (t) => {
    const plan = planCatalog([
      served('studio', b, [
        { name: 'shared', source: './s' },
        { name: 'twice', source: './t1' },
        { name: 'twice', source: './t2' },
      ]),
      served('acme', a, [
        { name: 'shared', source: './s' },
        { name: 'own', source: './o' },
      ]),
      served('beta-tools', c, [{ name: 'shared', source: './s' }]),
    ]);
    t.strictSame(
      plan.collisions,
      [
        { name: 'shared', marketplaces: ['acme', 'beta-tools', 'studio'] },
        { name: 'twice', marketplaces: ['studio', 'studio'] },
      ],
      'in name order, claimants in name order, one entry per claim',
    );
    t.strictSame(
      plan.candidates.map((p) => p.name),
      ['own'],
      'no claimant of a contested name is listed',
    );
  },
);

t.test('the catalog manifest keeps every entry field and rewrites only the source', async (t) => {
  const entry = {
    name: 'alpha',
    source: './plugins/alpha',
    description: 'the alpha plugin',
    version: '1.2.0',
    strict: false,
    skills: ['./skills/x'],
    category: 'dev',
  };
  const plan = planCatalog([served('acme', a, [entry])]);
  const files = catalogFiles({
    catalog: 'catalog',
    generatedAt: '2026-03-01T10:00:00.000Z',
    plan,
    listed: plan.candidates,
    missing: [],
  });
  const written = JSON.parse(files.manifest) as {
    name: string;
    owner: { name: string };
    plugins: Array<Record<string, unknown>>;
  };
  t.equal(written.name, 'catalog', 'the catalog is a marketplace named after gateway.catalog.name');
  t.ok(written.owner.name, 'owner is required by the format');
  t.strictSame(written.plugins, [{ ...entry, source: './plugins/acme/alpha' }]);
  t.strictSame(Object.keys(written.plugins[0]!), Object.keys(entry), 'field order as written');
});

t.test('the record of constituents and collisions reads back; anything else reads as no record', async (t) => {
  const plan = planCatalog([
    served('acme', a, [{ name: 'x', source: './x' }]),
    served('studio', b, [{ name: 'x', source: './x' }]),
  ]);
  const files = catalogFiles({
    catalog: 'catalog',
    generatedAt: '2026-03-01T10:00:00.000Z',
    plan,
    listed: [],
    missing: [],
  });
  t.strictSame(readCatalogRecord(files.recordText), {
    format: catalogFormat,
    catalog: 'catalog',
    generatedAt: '2026-03-01T10:00:00.000Z',
    constituents: [
      { marketplace: 'acme', sha: a },
      { marketplace: 'studio', sha: b },
    ],
    collisions: [{ name: 'x', marketplaces: ['acme', 'studio'] }],
    skipped: [],
  });
  t.match(files.message, /Constituents:\n {2}acme a{40}\n {2}studio b{40}/);
  t.match(files.message, /Withheld \(name claimed more than once\):\n {2}x: acme, studio/);
  for (const text of [
    null,
    '',
    '[]',
    '{"format":1}',
    '{"format":1,"catalog":"c","generatedAt":"t","constituents":[{"marketplace":1}],"collisions":[]}',
  ]) {
    t.equal(readCatalogRecord(text), null, `${String(text)} is no record`);
  }
});

t.test('what cannot be listed is recorded as skipped, never silently dropped', async (t) => {
  const plan = planCatalog([
    { marketplace: 'broken', sha: a, manifest: '{ not json' },
    served('acme', b, [
      { name: 'npm-one', source: { source: 'npm', package: 'x' } },
      { name: 'escaper', source: './../x' },
      'not an entry',
      { source: './nameless' },
    ]),
  ]);
  t.strictSame(plan.candidates, []);
  t.strictSame(
    plan.skipped.map((s) => [s.marketplace, s.name]),
    [
      ['broken', '*'],
      ['acme', 'escaper'],
      ['acme', 'npm-one'],
    ],
  );
});

t.test(
  'a plugin name unusable as a directory gets .entry-<index>; names differing only in case do not share a directory',
  async (t) => {
    const plan = planCatalog([
      served('acme', a, [
        { name: 'Explanatory Output Style', source: './a' },
        { name: 'we/ird', source: './b' },
        { name: '.git', source: './c' },
        { name: 'Tool', source: './d' },
        { name: 'tool', source: './e' },
      ]),
    ]);
    t.strictSame(Object.fromEntries(plan.candidates.map((p) => [p.name, p.dir])), {
      '.git': '.entry-2',
      'Explanatory Output Style': 'Explanatory Output Style',
      Tool: 'Tool',
      'we/ird': '.entry-1',
      tool: '.entry-4',
    });
  },
);

t.test('a served catalog is current only for the same layout, name and commits', async (t) => {
  const plan = planCatalog([served('acme', a, []), served('studio', b, [])]);
  const { record } = catalogFiles({
    catalog: 'catalog',
    generatedAt: '2026-03-01T10:00:00.000Z',
    plan,
    listed: [],
    missing: [],
  });
  t.ok(
    isCurrent(record, 'catalog', [
      { marketplace: 'studio', sha: b },
      { marketplace: 'acme', sha: a },
    ]),
    'order does not matter',
  );
  t.notOk(isCurrent(record, 'catalog', [{ marketplace: 'acme', sha: a }]), 'a marketplace stopped serving');
  t.notOk(
    isCurrent(record, 'catalog', [
      { marketplace: 'acme', sha: a },
      { marketplace: 'studio', sha: c },
    ]),
    'a new served commit',
  );
  t.notOk(
    isCurrent(record, 'everything', [
      { marketplace: 'acme', sha: a },
      { marketplace: 'studio', sha: b },
    ]),
    'renamed catalog',
  );
  t.notOk(
    isCurrent({ ...record, format: catalogFormat + 1 }, 'catalog', [
      { marketplace: 'acme', sha: a },
      { marketplace: 'studio', sha: b },
    ]),
    'other layout',
  );
  t.notOk(isCurrent(null, 'catalog', []), 'nothing served');
});

t.test('a collision is recorded when it becomes withheld, not again while it stays so', async (t) => {
  const shared = { name: 'shared', marketplaces: ['acme', 'studio'] };
  t.strictSame(newlyWithheld(null, [shared]), [shared], 'first revision');
  t.strictSame(newlyWithheld([shared], [shared]), [], 'unchanged');
  const wider = { name: 'shared', marketplaces: ['acme', 'beta', 'studio'] };
  t.strictSame(newlyWithheld([shared], [wider]), [wider], 'claimed by another marketplace as well');
});
