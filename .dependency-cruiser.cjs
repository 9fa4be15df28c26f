// Layer rules of STYLE.md 2.3, checked by `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'src/domain imports src/domain and the pure yaml package only: no node built-ins, no other package, no other layer',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^node_modules/yaml/'] },
    },
    {
      name: 'adapters-below-projections-and-http',
      comment: 'src/adapters may import the domain (types) and packages, never projections or http',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(projections|http|gateway\\.ts|main\\.ts)' },
    },
    {
      name: 'projections-use-ports',
      comment:
        'src/projections may import the domain, the event store port (and appendFacts for what reactors record), postgres and git adapters only',
      severity: 'error',
      from: { path: '^src/projections/' },
      to: {
        path: '^src/(http|gateway\\.ts|main\\.ts|adapters/(?!eventstore/(port|append-facts)\\.ts|postgres/|git/))',
      },
    },
    {
      name: 'nothing-below-application-imports-it',
      comment:
        'src/projections and src/adapters serve the use cases and import nothing from src/application (the command loop included)',
      severity: 'error',
      from: { path: '^src/(projections|adapters)/' },
      to: { path: '^src/application/' },
    },
    {
      name: 'application-below-http',
      comment: 'use cases (src/application) know nothing of requests, routes or the composition root',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { path: '^src/(http/|gateway\\.ts$|main\\.ts$)' },
    },
    {
      name: 'application-reads-queries',
      comment:
        'src/application reads read models through *.queries.ts and waits on the runner; it never reaches into a projection',
      severity: 'error',
      from: { path: '^src/application/' },
      to: {
        path: '^src/projections/',
        // ledger.chain.ts: the chain's definition (pure), shared by the projection that writes it and the
        // offline verifier (src/application/audit/verify.use-case.ts) that checks it.
        pathNot: [
          '\\.queries\\.ts$',
          '^src/projections/runner/(wait-for|leader)\\.ts$',
          '^src/projections/ledger/ledger\\.chain\\.ts$',
        ],
      },
    },
    {
      name: 'routes-call-use-cases',
      comment:
        "src/http parses, authenticates, calls one use case and answers: deciders and the command runner are src/application's",
      severity: 'error',
      // problems.ts only maps the runner's ConcurrencyExhausted to a 409.
      from: { path: '^src/http/', pathNot: '^src/http/problems\\.ts$' },
      to: {
        path: '^src/(application/kernel/(execute|run-command)\\.ts|adapters/eventstore/append-facts\\.ts|domain/.+\\.decider\\.ts)$',
      },
    },
    {
      name: 'http-imports-no-io-adapters',
      comment:
        'src/http reaches I/O through use cases: of src/adapters it imports types, and only the pure codecs named here',
      severity: 'error',
      from: { path: '^src/http/' },
      to: {
        path: '^src/adapters/',
        // Pure, no I/O: pkt-line framing (git's wire), token digests and handles (hashing, randomness),
        // the database-unavailable classification of an error, the built-in sign-in's HTML pages.
        pathNot: [
          '^src/adapters/git/pkt-line\\.ts$',
          '^src/adapters/system/token-digests\\.ts$',
          '^src/adapters/postgres/unavailable\\.ts$',
          '^src/adapters/identity/local-idp/pages\\.ts$',
        ],
        // A type (a port's or a configuration's) does no I/O.
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'http-reads-through-application',
      comment:
        'src/http reads read models through read use cases in src/application (src/application/<concept>/*.use-case.ts), never src/projections',
      severity: 'error',
      from: { path: '^src/http/' },
      to: {
        path: '^src/projections/',
        // runner/wait-for.ts: problems.ts maps the runner's ProjectionLag (read-your-writes timed out) to a 503.
        pathNot: '^src/projections/runner/wait-for\\.ts$',
      },
    },
    {
      name: 'composition-root-wires-no-route-internals',
      comment:
        'gateway.ts builds the server; it takes leader duties and use cases from src/application, never from src/http/api',
      severity: 'error',
      from: { path: '^src/gateway\\.ts$' },
      to: { path: '^src/http/api/' },
    },
    {
      name: 'only-the-composition-root-imports-http',
      severity: 'error',
      // The composition root: src/gateway.ts and the gateway-*.ts files it is split into.
      from: { path: '^src/', pathNot: '^src/(http/|gateway[a-z-]*\\.ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
