// The build's software bill of materials (GET /actuator/sbom): a CycloneDX 1.6 JSON
// document made from the lock files by @cyclonedx/cyclonedx-npm, written to dist/sbom.cdx.json (or the
// file given as the only argument). Run by `npm run build` and by scripts/build-if-needed.mjs.
//
// - The gateway: package-lock.json, production dependencies only (`--omit dev`): what `npm prune
//   --omit=dev` leaves in the image, which is what runs.
// - The portal (portal/, its own package and lock): every one of its dependencies is a devDependency,
//   because Vite bundles them into dist/portal at build time. What ships is the packages its source
//   imports (portal/src) and what those depend on; that set is added as the component
//   skill-marketplace-gateway-portal with its libraries. Vite, its plugins and @types/* do not ship.
// - Reproducible: the same lock files give the same bytes (no timestamp; the serial number is derived
//   from the content).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const output = resolve(root, process.argv[2] ?? 'dist/sbom.cdx.json');
const cli = join(root, 'node_modules/@cyclonedx/cyclonedx-npm/bin/cyclonedx-npm-cli.js');
const specVersion = '1.6';

/** cyclonedx-npm over one package's lock file (it runs `npm ls --package-lock-only` underneath). */
function generate(dir, omitDev) {
  const args = [cli, '--package-lock-only', '--spec-version', specVersion, '--output-reproducible'];
  args.push('--flatten-components', '--output-format', 'JSON', '--output-file', '-');
  if (omitDev) args.push('--omit', 'dev');
  const text = execFileSync(process.execPath, args, {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(text);
}

const fullName = (component) => (component.group ? `${component.group}/${component.name}` : component.name);

/** The package names a source tree imports at run time (bare specifiers; `import type` ships nothing). */
function importedPackages(dir) {
  const names = new Set();
  const visit = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const file = join(path, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (/\.(?:[cm]?[jt]sx?)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const text = readFileSync(file, 'utf8').replace(/^\s*(?:import|export)\s+type\s[^;]*;/gm, '');
        // Only module specifiers: a statement's `from '…'`, a bare `import '…'`, an `import('…')` call
        // (a string argument such as `query.get('from')` is not one).
        const specifiers = [
          ...text.matchAll(/^\s*(?:import|export)\s[^;()=]*?\bfrom\s*['"]([^'"]+)['"]/gm),
          ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
          ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
        ].map((match) => match[1]);
        for (const spec of specifiers.filter((name) => !/^[./]/.test(name))) {
          const parts = spec.split('/');
          names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
        }
      }
    }
  };
  visit(dir);
  return names;
}

/** The portal's shipped part: its component, the libraries its bundle carries, and their graph. */
function portalPart(bom) {
  const portalRef = bom.metadata.component['bom-ref'];
  const edges = new Map(bom.dependencies.map((d) => [d.ref, d.dependsOn ?? []]));
  const byRef = new Map(bom.components.map((c) => [c['bom-ref'], c]));
  const imported = importedPackages(join(root, 'portal/src'));
  const direct = (edges.get(portalRef) ?? []).filter((ref) => imported.has(fullName(byRef.get(ref) ?? {})));
  const missing = [...imported].filter((name) => !direct.some((ref) => fullName(byRef.get(ref)) === name));
  if (missing.length > 0) throw new Error(`portal/src imports packages not in portal/package-lock.json: ${missing}`);
  const shipped = new Set();
  const pending = [...direct];
  while (pending.length > 0) {
    const ref = pending.pop();
    if (shipped.has(ref)) continue;
    shipped.add(ref);
    pending.push(...(edges.get(ref) ?? []));
  }
  const components = bom.components.filter((c) => shipped.has(c['bom-ref']));
  const dependencies = [
    { ref: portalRef, dependsOn: direct.sort() },
    ...bom.dependencies.filter((d) => shipped.has(d.ref)),
  ];
  const component = {
    ...bom.metadata.component,
    description: `${bom.metadata.component.description ?? 'The portal'} Its libraries are bundled into dist/portal.`,
  };
  return { component, components, dependencies };
}

/** A UUID (version 5 layout) from the document's content, so that one lock file gives one serial number. */
function serialOf(bom) {
  const hex = createHash('sha256').update(JSON.stringify(bom)).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function buildSbom() {
  const gateway = generate(root, true);
  const portal = portalPart(generate(join(root, 'portal'), false));
  const rootRef = gateway.metadata.component['bom-ref'];
  const bom = {
    ...gateway,
    components: [...gateway.components, portal.component, ...portal.components],
    dependencies: [
      ...gateway.dependencies.map((d) =>
        d.ref === rootRef ? { ...d, dependsOn: [...(d.dependsOn ?? []), portal.component['bom-ref']] } : d,
      ),
      ...portal.dependencies,
    ],
  };
  return {
    $schema: bom.$schema,
    bomFormat: bom.bomFormat,
    specVersion: bom.specVersion,
    serialNumber: serialOf(bom),
    ...bom,
  };
}

const bom = buildSbom();
mkdirSync(dirname(output), { recursive: true });
// Written whole, then renamed: a gateway reading it meanwhile sees the old document or the new one.
writeFileSync(`${output}.tmp`, `${JSON.stringify(bom, null, 2)}\n`);
renameSync(`${output}.tmp`, output);
process.stderr.write(
  `SBOM: ${relative(process.cwd(), output)} (CycloneDX ${bom.specVersion}, ${bom.components.length} components)\n`,
);
