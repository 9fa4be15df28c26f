// Layer rules of STYLE.md 2.3, checked by `npm run lint`.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports src/domain and the pure yaml package only: no node built-ins, no other package, no other layer',
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
      comment: 'src/projections may import the domain and the event store port, postgres and git adapters only',
      severity: 'error',
      from: { path: '^src/projections/' },
      to: { path: '^src/(http|gateway\\.ts|main\\.ts|adapters/(?!eventstore/port\\.ts|postgres/|git/))' },
    },
    {
      name: 'only-the-composition-root-imports-http',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(http/|gateway\\.ts$)' },
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
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
