import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import tseslint from 'typescript-eslint';

// The portal's sections are the folders under portal/src/pages. A section imports its own folder,
// portal/src/components/ and portal/src/api/ (queries more than one section reads) and no other section;
// components/ and api/ serve every section and import none. Relative imports are resolved against the
// importing file, so `../audit/queries`, `../../pages/audit/queries` and a stylesheet are all caught.
const portalSrc = resolve(import.meta.dirname, 'portal/src');
const within = (folder, path) => {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep) : null;
};
const sectionOf = (path) => within(resolve(portalSrc, 'pages'), path)?.[0] ?? null;
const sharedFolder = (path) => ['components', 'api'].includes(within(portalSrc, path)?.[0]);

const portalSections = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      otherSection:
        "portal section '{{own}}' imports section '{{other}}': a section imports only its own folder, components/ and api/; move what both use to components/ (a query several sections read: api/)",
      sharedImportsSection: "'{{other}}' is a section: components/ and api/ serve every section and import none",
    },
  },
  create(context) {
    const own = sectionOf(context.filename);
    const shared = sharedFolder(context.filename);
    if (own === null && !shared) return {};
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const other = sectionOf(resolve(dirname(context.filename), source.value));
      if (other === null || other === own) return;
      context.report({
        node: source,
        messageId: shared ? 'sharedImportsSection' : 'otherSection',
        data: { own, other },
      });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  {
    // test/fixtures/vetting-corpus: content under test, kept as authors write it (its README).
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/results/**',
      '.tap/**',
      'data/**',
      'test/fixtures/vetting-corpus/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // No file in src over 400 lines, no function over 80.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // Tests read JSON answers field by field; typing every answer would only restate the schemas.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // STYLE.md 2.3: the domain is pure; the clock and randomness are decided at the edge.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'no clock in src/domain: take the instant from CommandMeta.at',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'no clock in src/domain: take the instant from CommandMeta.at',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'no randomness in src/domain',
        },
        { selector: "MemberExpression[object.name='process']", message: 'no process access in src/domain' },
      ],
    },
  },
  {
    files: ['portal/src/**/*.{ts,tsx}'],
    plugins: { portal: { rules: { sections: portalSections } } },
    rules: { 'portal/sections': 'error' },
  },
  {
    // No process.env outside the configuration and system adapters (STYLE.md 2.10).
    files: ['src/**/*.ts'],
    ignores: ['src/adapters/config/**', 'src/adapters/system/**', 'src/main.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read configuration through src/adapters/config' },
      ],
    },
  },
);
