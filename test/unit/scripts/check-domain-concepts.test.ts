import t from 'tap';
import {
  conceptOf,
  conceptProblems,
  describeProblem,
  type ModuleGraph,
} from '../../../scripts/check-domain-concepts.ts';

/** A module graph from `from -> to` lines, as dependency-cruiser reports it (only source and resolved are read). */
const graph = (...imports: string[]): ModuleGraph => {
  const modules = new Map<string, { source: string; dependencies: { resolved: string }[] }>();
  for (const line of imports) {
    const [from, to] = line.split(' -> ') as [string, string];
    const module = modules.get(from) ?? { source: from, dependencies: [] };
    modules.set(from, module);
    module.dependencies.push({ resolved: to });
  }
  return [...modules.values()];
};

t.test(
  'the concept of a path is its folder directly under src/domain; root files and other layers have none',
  async (t) => {
    t.equal(conceptOf('src/domain/plugin/layout.ts'), 'plugin');
    t.equal(conceptOf('src/domain/vetting/connectors/mcp.connector.ts'), 'vetting');
    t.equal(conceptOf('src/domain/events.ts'), null);
    t.equal(conceptOf('src/application/marketplaces/ingest.use-case.ts'), null);
    t.equal(conceptOf('node_modules/yaml/dist/index.js'), null);
  },
);

t.test('one-way imports between concepts, to the kernel and through the root union are allowed', async (t) => {
  const problems = conceptProblems(
    graph(
      'src/domain/vetting/capabilities.ts -> src/domain/plugin/layout.ts',
      'src/domain/vetting/outcome.ts -> src/domain/vetting/vetting.events.ts',
      'src/domain/snapshot/approve-gate.ts -> src/domain/vetting/outcome.ts',
      'src/domain/plugin/layout.ts -> src/domain/kernel/findings.ts',
      'src/domain/vetting/vetting.events.ts -> src/domain/kernel/findings.ts',
      'src/domain/events.ts -> src/domain/vetting/vetting.events.ts',
      'src/domain/webhook/outbound.ts -> src/domain/events.ts',
    ),
  );
  t.strictSame(problems, []);
});

t.test('two concepts importing each other are reported with every import between them', async (t) => {
  const problems = conceptProblems(
    graph(
      'src/domain/plugin/paths.ts -> src/domain/vetting/findings.ts',
      'src/domain/plugin/layout.ts -> src/domain/vetting/findings.ts',
      'src/domain/vetting/capabilities.ts -> src/domain/plugin/layout.ts',
      'src/domain/catalog/catalog-plan.ts -> src/domain/plugin/paths.ts',
    ),
  );
  t.strictSame(problems, [
    {
      concepts: ['plugin', 'vetting'],
      imports: [
        'src/domain/plugin/layout.ts -> src/domain/vetting/findings.ts',
        'src/domain/plugin/paths.ts -> src/domain/vetting/findings.ts',
        'src/domain/vetting/capabilities.ts -> src/domain/plugin/layout.ts',
      ],
    },
  ]);
  t.match(describeProblem(problems[0]!), /^domain concepts import each other: plugin <-> vetting \(/);
});

t.test('a longer cycle (a -> b -> c -> a) is reported once, as one problem naming its concepts', async (t) => {
  const problems = conceptProblems(
    graph(
      'src/domain/marketplace/marketplace.decider.ts -> src/domain/snapshot/snapshot.decider.ts',
      'src/domain/snapshot/approve-gate.ts -> src/domain/policy/policy.events.ts',
      'src/domain/policy/variables.ts -> src/domain/marketplace/forge.ts',
      'src/domain/publish/publish.events.ts -> src/domain/marketplace/marketplace.events.ts',
    ),
  );
  t.strictSame(
    problems.map((problem) => problem.concepts),
    [['marketplace', 'policy', 'snapshot']],
  );
  t.equal(problems[0]!.imports.length, 3);
  t.match(describeProblem(problems[0]!), 'domain concepts import each other: marketplace, policy, snapshot');
});

t.test('the kernel imports no concept', async (t) => {
  const problems = conceptProblems(
    graph(
      'src/domain/kernel/findings.ts -> src/domain/vetting/license.ts',
      'src/domain/vetting/outcome.ts -> src/domain/kernel/findings.ts',
    ),
  );
  t.strictSame(problems, [
    { concepts: ['kernel', 'vetting'], imports: ['src/domain/kernel/findings.ts -> src/domain/vetting/license.ts'] },
  ]);
  t.match(describeProblem(problems[0]!), 'the domain kernel imports the concept vetting');
});
