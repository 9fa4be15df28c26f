// The manifest connector: marketplace.json and every plugin.json against the format (docs/plugin-format.md).
// A manifest Claude Code cannot load, a plugin name listed twice (which entry wins is up to the client), a
// path out of the plugin or a source the gateway cannot pin all block; style and load-time oddities only warn.
import { manifestPath } from '../../plugin/manifest-policy.ts';
import type { Doc, JsonRead } from '../../plugin/json-document.ts';
import { componentFields, layoutOf, type PluginLayout } from '../../plugin/layout.ts';
import { inside, resolveSource } from '../../plugin/paths.ts';
import { fileNotScanned, locationOf, type Finding, type PureScanner, type Severity } from '../../kernel/findings.ts';

const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// Claude Code refuses these (and look-alikes) for third-party marketplaces (docs/plugin-format.md).
const reservedNames = new Set([
  'claude-code-marketplace',
  'claude-code-plugins',
  'claude-plugins-official',
  'claude-plugins-community',
  'claude-community',
  'anthropic-marketplace',
  'anthropic-plugins',
  'agent-skills',
  'anthropic-agent-skills',
  'knowledge-work-plugins',
  'life-sciences',
  'claude-for-legal',
  'claude-for-financial-services',
  'financial-services-plugins',
  'first-party-plugins',
  'healthcare',
]);
// Optional fields Claude Code reads, with the JSON type it needs (a wrong one is a load error or ignored).
const fieldTypes: Readonly<Record<string, 'string' | 'array' | 'object' | 'boolean'>> = {
  description: 'string',
  version: 'string',
  displayName: 'string',
  keywords: 'array',
  author: 'object',
  homepage: 'string',
  license: 'string',
  strict: 'boolean',
  defaultEnabled: 'boolean',
  category: 'string',
  tags: 'array',
  dependencies: 'array',
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const typeOf = (value: unknown): string => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
const clip = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

class Report {
  readonly findings: Finding[] = [];
  add(id: string, severity: Severity, path: string, line: number, message: string): void {
    this.findings.push({ id: `manifest-${id}`, severity, location: locationOf(path, line), message });
  }
  /** A marketplace or plugin name that is not kebab-case; `why` says who else rejects it. */
  notKebab(path: string, line: number, what: string, name: string, why = ''): void {
    this.add('non-kebab-name', 'LOW', path, line, `${what} name '${clip(name)}' is not kebab-case${why}`);
  }
}

/** Fields of an entry or plugin.json whose type Claude Code would not accept. */
function checkFieldTypes(report: Report, holder: Json, doc: Doc, path: string, what: string): void {
  for (const [field, type] of Object.entries(fieldTypes)) {
    if (holder[field] !== undefined && typeOf(holder[field]) !== type) {
      report.add(
        'invalid-field',
        'MEDIUM',
        path,
        doc.lineOf(holder, field),
        `${what}: ${field} must be a${type === 'array' || type === 'object' ? 'n' : ''} ${type}, not ${typeOf(holder[field])}`,
      );
    }
  }
}

function checkMarketplace(report: Report, doc: Doc): void {
  const manifest = doc.value;
  if (!isObject(manifest))
    return report.add('invalid-structure', 'HIGH', manifestPath, 1, `${manifestPath} is not a JSON object`);
  const missing = (holder: Json, what: string) =>
    report.add('missing-field', 'HIGH', manifestPath, doc.lineOf(holder), what);
  if (typeof manifest.name !== 'string' || manifest.name.trim() === '')
    missing(manifest, 'the marketplace has no name');
  else if (reservedNames.has(manifest.name))
    report.add(
      'reserved-name',
      'MEDIUM',
      manifestPath,
      doc.lineOf(manifest, 'name'),
      `marketplace name '${manifest.name}' is reserved for Anthropic; Claude Code refuses it from anyone else`,
    );
  else if (!kebab.test(manifest.name))
    report.notKebab(manifestPath, doc.lineOf(manifest, 'name'), 'marketplace', manifest.name);
  if (!isObject(manifest.owner) || typeof manifest.owner.name !== 'string' || manifest.owner.name.trim() === '')
    missing(manifest, 'the marketplace has no owner with a name');
  if (!Array.isArray(manifest.plugins)) return missing(manifest, 'the marketplace has no plugins list');

  let pluginRoot: string | null | undefined;
  if (isObject(manifest.metadata) && typeof manifest.metadata.pluginRoot === 'string') {
    pluginRoot = inside('', manifest.metadata.pluginRoot);
    if (pluginRoot === null)
      report.add(
        'path-escapes',
        'HIGH',
        manifestPath,
        doc.lineOf(manifest.metadata, 'pluginRoot'),
        `metadata.pluginRoot '${clip(manifest.metadata.pluginRoot)}' escapes the repository`,
      );
  }
  const seen = new Set<string>();
  for (const [index, entry] of manifest.plugins.entries()) {
    const line = doc.lineOf(manifest.plugins, index);
    if (!isObject(entry)) {
      report.add('invalid-entry', 'HIGH', manifestPath, line, `plugins[${index}] is not an object`);
      continue;
    }
    const name = typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name : null;
    const what = name === null ? `plugins[${index}]` : `plugin '${clip(name)}'`;
    if (name === null) report.add('missing-field', 'HIGH', manifestPath, line, `${what} has no name`);
    else if (seen.has(name))
      report.add(
        'duplicate-plugin',
        'HIGH',
        manifestPath,
        doc.lineOf(entry, 'name'),
        `plugin name '${clip(name)}' is listed more than once`,
      );
    else if (!kebab.test(name))
      report.notKebab(manifestPath, doc.lineOf(entry, 'name'), 'plugin', name, ' (claude.ai sync rejects it)');
    if (name !== null) seen.add(name);
    const { problem } = resolveSource(entry.source, pluginRoot);
    const sourceLine = doc.lineOf(entry, 'source');
    if (problem?.kind === 'escapes')
      report.add('path-escapes', 'HIGH', manifestPath, sourceLine, `${what}: ${problem.message}`);
    else if (problem?.kind === 'unsupported')
      report.add('unsupported-source', 'HIGH', manifestPath, sourceLine, `${what}: ${problem.message}`);
    else if (problem !== null) report.add('missing-field', 'HIGH', manifestPath, line, `${what} ${problem.message}`);
    checkFieldTypes(report, entry, doc, manifestPath, what);
  }
}

function checkPluginJson(report: Report, plugin: PluginLayout, read: Extract<JsonRead, { status: 'ok' }>): void {
  const { doc, path } = read;
  const value = doc.value;
  if (!isObject(value)) return report.add('invalid-structure', 'HIGH', path, 1, `${path} is not a JSON object`);
  if (typeof value.name !== 'string' || value.name.trim() === '')
    report.add('missing-field', 'HIGH', path, 1, `${path} has no name`);
  else if (!kebab.test(value.name)) report.notKebab(path, doc.lineOf(value, 'name'), 'plugin', value.name);
  checkFieldTypes(report, value, doc, path, `plugin '${clip(plugin.name)}'`);
  if (!plugin.strict && componentFields.some((field) => value[field] !== undefined)) {
    report.add(
      'conflicting-manifests',
      'MEDIUM',
      manifestPath,
      plugin.entryLine,
      `plugin '${clip(plugin.name)}' is strict: false but its plugin.json declares components too; Claude Code refuses to load it`,
    );
  }
  if (
    typeof value.version === 'string' &&
    typeof plugin.entry.version === 'string' &&
    value.version !== plugin.entry.version
  ) {
    report.add(
      'version-mismatch',
      'LOW',
      path,
      doc.lineOf(value, 'version'),
      `plugin '${clip(plugin.name)}' is version ${clip(value.version, 40)} in plugin.json but ${clip(plugin.entry.version, 40)} in the marketplace entry; plugin.json wins`,
    );
  }
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const scan: PureScanner = (input) => {
  const layout = layoutOf(input);
  const report = new Report();
  const { manifest } = layout;
  if (manifest.status === 'missing') report.add('missing', 'HIGH', manifestPath, 1, `${manifestPath} is missing`);
  else if (manifest.status === 'oversized') report.findings.push(fileNotScanned(manifest.file, input.maxFileBytes));
  else if (manifest.status === 'invalid')
    report.add('invalid-json', 'HIGH', manifestPath, manifest.line, `${manifestPath} ${manifest.message}`);
  else checkMarketplace(report, manifest.doc);

  let pluginJsons = 0;
  for (const plugin of layout.plugins) {
    if (plugin.root !== null && !plugin.found) {
      report.add(
        'plugin-not-found',
        'MEDIUM',
        manifestPath,
        plugin.entryLine,
        `plugin '${clip(plugin.name)}': nothing exists at '${clip(plugin.source)}'`,
      );
    }
    const read = plugin.pluginJson;
    if (read === null || read.status === 'missing') continue;
    pluginJsons++;
    if (read.status === 'oversized') report.findings.push(fileNotScanned(read.file, input.maxFileBytes));
    else if (read.status === 'invalid')
      report.add('invalid-json', 'HIGH', read.path, read.line, `${read.path} ${read.message}`);
    else checkPluginJson(report, plugin, read);
  }

  // Component declarations (skills, commands, agents, hooks, servers) as the layout met them. Sources and
  // marketplace-level problems are checked above; hook and server contents belong to their connectors.
  const inManifest = (location: string) =>
    location.startsWith(`${manifestPath}:`) || /(?:^|\/)\.claude-plugin\/plugin\.json:\d+$/.test(location);
  for (const problem of layout.problems) {
    if (problem.area === 'marketplace' || problem.area === 'plugin') continue;
    const [path, line] = [problem.location.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(problem.location)?.[1] ?? 1)];
    if (problem.kind === 'escapes') report.add('path-escapes', 'HIGH', path, line, problem.message);
    else if (problem.kind === 'missing') report.add('missing-path', 'LOW', path, line, problem.message);
    else if (
      problem.kind === 'invalid' &&
      inManifest(problem.location) &&
      ['skills', 'commands', 'agents'].includes(problem.area)
    ) {
      report.add('invalid-field', 'MEDIUM', path, line, problem.message);
    }
  }
  return {
    findings: report.findings,
    detail: `${count(layout.plugins.length, 'plugin')}, ${count(pluginJsons, 'plugin manifest')} examined`,
  };
};

export const manifestConnector: Readonly<{ name: 'manifest'; description: string; scan: PureScanner }> = {
  name: 'manifest',
  description:
    'marketplace.json and plugin.json against the plugin marketplace format: required fields, duplicate names, supported sources, paths inside the plugin',
  scan,
};
