import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import parseSpdx from 'spdx-expression-parse';
import {
  fileNotScanned,
  locationOf,
  pathOfLocation,
  type Finding,
  type ScanFile,
  type ScanInput,
  type ScanReport,
} from '../../domain/kernel/findings.ts';
import type { Connector } from './connector.ts';
import {
  evaluateExpression,
  evaluateLicense,
  type LicenseEntry,
  type LicenseReport,
} from '../../domain/vetting/license.ts';

// --- LICENSE files: identified by text similarity to the SPDX license texts --------------------------

/** Dice coefficient over word bigrams above which a text is taken to be that license. */
const threshold = 0.8;

// LICENSE, LICENSE.md, LICENCE-MIT, COPYING, COPYING.LESSER… at any depth; not source files that happen
// to be called license.ts.
const licenseFileName = /^(?:licen[cs]e|copying)(?:[-_.][\w.-]*)?$/i;
const notALicenseText = /\.(?:[cm]?[jt]sx?|json|ya?ml|toml|py|rb|go|rs|java|sh|css|svg|png|jpe?g|gif)$/i;
export const isLicenseFile = (path: string): boolean => {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return licenseFileName.test(name) && !notALicenseText.test(name);
};

/**
 * The words a comparison sees: lower case, no copyright lines (the year and holder a real file fills in
 * in place of the template's `<year> <owner>`), no punctuation or markdown, British spelling folded, and
 * nothing after "end of terms and conditions": the how-to-apply appendix of the Apache and GNU texts is
 * often left out, and without it an Apache-2.0 file is closer to Pixar's modified Apache (which has none).
 */
const wordsOf = (text: string): string[] => {
  const words = text
    .split(/\r?\n/)
    .filter((line) => !/^[\s#*>_-]*(?:copyright\b|\(c\)|©)/i.test(line))
    .join(' ')
    .toLowerCase()
    .replace(/licenc/g, 'licens')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  const end = words.indexOf('end of terms and conditions');
  return (end === -1 ? words : words.slice(0, end)).split(' ').filter((word) => word !== '');
};

// Word bigrams as numbers (two vocabulary indexes packed below 2^53): set operations on numbers are
// several times faster than on strings. The vocabulary holds the SPDX texts' words only; a word of a
// scanned file that is not in it gets a private index, so scanning never grows module state.
const vocabulary = new Map<string, number>();
const shift = 2 ** 24;
const bigramsOf = (words: readonly string[], indexOf: (word: string) => number): Set<number> => {
  const bigrams = new Set<number>();
  for (let i = 1; i < words.length; i += 1) bigrams.add(indexOf(words[i - 1]!) * shift + indexOf(words[i]!));
  return bigrams;
};

/** One distinct SPDX text: the ids that share it (preferred first) and its bigrams. */
type Reference = Readonly<{ ids: readonly string[]; bigrams: ReadonlySet<number> }>;

// Among ids with the same text (GPL-3.0, GPL-3.0-only, GPL-3.0-or-later, GPL-3.0+) the text alone cannot
// tell "only" from "or later" (that is said in the source headers); the report names the `-only` id
// and the evaluation matches the lists against every id of the group, so banning either form bans it.
const preferred = (a: string, b: string): number =>
  Number(!a.endsWith('-only')) - Number(!b.endsWith('-only')) || a.length - b.length || a.localeCompare(b);

let references: readonly Reference[] | null = null;
let preparing: Promise<void> | null = null;

const vocabularyIndex = (word: string): number => {
  let n = vocabulary.get(word);
  if (n === undefined) vocabulary.set(word, (n = vocabulary.size));
  return n;
};

type SpdxList = typeof import('spdx-license-list/full.js');
const require = createRequire(import.meta.url);
/** The SPDX license list (~5 MB of JSON), loaded on first use rather than at import. */
const spdxList = (): SpdxList => require('spdx-license-list/full.js') as SpdxList;
/** The same, read without holding the event loop for the read (the parse is one stretch of ~30 ms). */
const readSpdxList = async (): Promise<SpdxList> =>
  JSON.parse(await readFile(require.resolve('spdx-license-list/spdx-full.json'), 'utf8')) as SpdxList;

/** The references from the SPDX texts grouped by their words; `pause` is awaited between groups of texts. */
function* referencesOf(full: SpdxList): Generator<'pause', readonly Reference[]> {
  const byText = new Map<string, { ids: string[]; words: string[] }>();
  let since = performance.now();
  for (const [id, license] of Object.entries(full)) {
    const words = wordsOf(license.licenseText);
    const key = words.join(' ');
    const group = byText.get(key);
    if (group === undefined) byText.set(key, { ids: [id], words });
    else group.ids.push(id);
    if (performance.now() - since > sliceMs) {
      yield 'pause';
      since = performance.now();
    }
  }
  const built: Reference[] = [];
  for (const { ids, words } of byText.values()) {
    built.push({ ids: ids.sort(preferred), bigrams: bigramsOf(words, vocabularyIndex) });
    if (performance.now() - since > sliceMs) {
      yield 'pause';
      since = performance.now();
    }
  }
  return built.sort((a, b) => a.bigrams.size - b.bigrams.size);
}

/** Longest stretch of the event loop the preparation of the SPDX texts takes at a time. */
const sliceMs = 15;

/**
 * Normalises the SPDX texts (some hundreds of milliseconds of work) in slices, letting the event loop run
 * between them, so that the first vetting does not hold it; the connector awaits it before scanning.
 */
export function prepareSpdxReferences(): Promise<void> {
  if (references !== null) return Promise.resolve();
  preparing ??= (async () => {
    const steps = referencesOf(await readSpdxList());
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) {
        references ??= step.value;
        return;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  })();
  return preparing;
}

/** The SPDX texts, normalised once (prepareSpdxReferences, or here all at once), sorted by bigram count. */
function spdxReferences(): readonly Reference[] {
  if (references !== null) return references;
  const steps = referencesOf(spdxList());
  let step = steps.next();
  while (!step.done) step = steps.next();
  references = step.value;
  return references;
}

/** The SPDX ids (preferred first) whose text `text` is, or null when no license is close enough. */
export const identifyLicenseText = (text: string): readonly string[] | null => identifyWords(wordsOf(text));

/** identifyLicenseText over the words a comparison sees. */
function identifyWords(words: readonly string[]): readonly string[] | null {
  const refs = spdxReferences();
  const local = new Map<string, number>();
  const bigrams = bigramsOf(
    words,
    (word) => vocabulary.get(word) ?? local.get(word) ?? local.set(word, shift - 1 - local.size).get(word)!,
  );
  const size = bigrams.size;
  if (size === 0) return null;
  // Dice ≤ 2·min/(a+b): only texts whose size is within [size·t/(2−t), size·(2−t)/t] can reach t.
  const low = (size * threshold) / (2 - threshold);
  const high = (size * (2 - threshold)) / threshold;
  let best: Reference | null = null;
  let bestScore = threshold;
  for (const ref of refs) {
    if (ref.bigrams.size < low) continue;
    if (ref.bigrams.size > high) break;
    const [small, large] = size < ref.bigrams.size ? [bigrams, ref.bigrams] : [ref.bigrams, bigrams];
    let common = 0;
    for (const bigram of small) if (large.has(bigram)) common += 1;
    const score = (2 * common) / (size + ref.bigrams.size);
    if (score >= bestScore) [best, bestScore] = [ref, score];
  }
  return best?.ids ?? null;
}

// --- manifests: the `license` field of marketplace entries and plugin.json -----------------------------

const manifestKind = (path: string): 'marketplace' | 'plugin' | null =>
  (/(?:^|\/)\.claude-plugin\/(marketplace|plugin)\.json$/.exec(path)?.[1] as 'marketplace' | 'plugin' | undefined) ??
  null;

const lineAt = (text: string, index: number): number => {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
};

/** The declared `license` values of a manifest, in document order (non-strings as their JSON). */
function declaredLicenses(kind: 'marketplace' | 'plugin', text: string): unknown[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return []; // an unreadable manifest declares nothing (the manifest policy reports it)
  }
  const record = (value: unknown): Record<string, unknown> | null =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const root = record(json);
  const holders = kind === 'plugin' ? [root] : Array.isArray(root?.plugins) ? root.plugins.map(record) : [];
  return holders.filter((holder) => holder !== null && 'license' in holder).map((holder) => holder!.license);
}

/**
 * Manifest entries with the line of their `license` key, best effort: each declared value takes the first
 * unclaimed `"license": <that value>` in the text, in order, else line 1.
 */
function manifestEntries(file: ScanFile, kind: 'marketplace' | 'plugin', input: ScanInput): LicenseEntry[] {
  const text = file.text ?? '';
  const keys = [...text.matchAll(/"license"\s*:\s*/g)].map((match) => match.index + match[0].length);
  return declaredLicenses(kind, text).map((value) => {
    const declared = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    const at = keys.findIndex((index) => text.startsWith(JSON.stringify(value) ?? 'null', index));
    const line = at === -1 ? 1 : lineAt(text, keys.splice(at, 1)[0]!);
    let evaluated: Pick<LicenseEntry, 'spdxId' | 'evaluation'> = { spdxId: null, evaluation: 'UNKNOWN' };
    if (typeof value === 'string') {
      try {
        evaluated = evaluateExpression(parseSpdx(value), input.license);
      } catch {
        // not an SPDX expression ("Apache 2", "UNLICENSED", "SEE LICENSE IN …"): the unknown-license state
      }
    }
    return { ...evaluated, source: 'manifest', location: locationOf(file.path, line), declared };
  });
}

// --- the report and the connector ---------------------------------------------------------------------

/**
 * The license report body (without snapshotId and sha), recomputed from the tree
 * under the lists in force: one entry per LICENSE file (a binary or oversized one is unknown) and per
 * `license` field of `.claude-plugin/marketplace.json` entries and `.claude-plugin/plugin.json` files.
 */
export function licenseReport(input: ScanInput): LicenseReport {
  // The plugins of one marketplace often ship the same license text under other copyright lines (which the
  // comparison leaves out): each distinct text is compared with the SPDX texts once.
  const identified = new Map<string, readonly string[] | null>();
  const identify = (text: string): readonly string[] | null => {
    const words = wordsOf(text);
    const key = words.join(' ');
    if (!identified.has(key)) identified.set(key, identifyWords(words));
    return identified.get(key)!;
  };
  const licenses = input.files.flatMap((file): LicenseEntry[] => {
    if (isLicenseFile(file.path)) {
      const ids = file.text === null ? null : identify(file.text);
      return [
        {
          spdxId: ids?.[0] ?? null,
          source: 'file',
          location: locationOf(file.path),
          declared: null,
          evaluation: evaluateLicense(ids, input.license),
        },
      ];
    }
    const kind = manifestKind(file.path);
    return kind === null || file.text === null ? [] : manifestEntries(file, kind, input);
  });
  return { licenses, allowed: [...input.license.allow], banned: [...input.license.ban] };
}

const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

function findingOf(entry: LicenseEntry, input: ScanInput): Finding | null {
  const subject =
    entry.source === 'file'
      ? `license file identified as ${entry.spdxId}`
      : `license "${clip(entry.declared ?? '')}"${entry.spdxId !== null && entry.spdxId !== entry.declared ? ` (evaluated as ${entry.spdxId})` : ''}`;
  const at = { location: entry.location };
  switch (entry.evaluation) {
    case 'OK':
      return null;
    case 'BANNED':
      return {
        id: 'license-banned',
        severity: 'HIGH',
        ...at,
        message: `${subject}: ${entry.spdxId} is banned (gateway.vetting.license.ban)`,
      };
    case 'NOT_ALLOWED':
      return {
        id: 'license-not-allowed',
        severity: 'HIGH',
        ...at,
        message: `${subject}: ${entry.spdxId} is not on the allow list (gateway.vetting.license.allow)`,
      };
    case 'UNKNOWN': {
      let message = `${subject}: ${entry.spdxId} is a custom license reference on neither list; its terms are unknown`;
      if (entry.source === 'file' && entry.spdxId === null) {
        const unread = input.byPath.get(pathOfLocation(entry.location))?.text === null;
        message = unread
          ? 'license file not read (binary or over the size limit): license unknown'
          : 'license file text matches no SPDX license: license unknown';
      } else if (entry.spdxId === null) message = `${subject} is not a valid SPDX license expression: license unknown`;
      return { id: 'license-unknown', severity: 'LOW', ...at, message };
    }
  }
}

const summary = (licenses: readonly LicenseEntry[]): string => {
  if (licenses.length === 0) return 'no license information';
  const names = licenses.slice(0, 10).map((entry) => `${entry.spdxId ?? 'unknown'} (${entry.source})`);
  const more = licenses.length > 10 ? `, and ${licenses.length - 10} more` : '';
  return `${licenses.length} license${licenses.length === 1 ? '' : 's'}: ${names.join(', ')}${more}`;
};

/** The license findings over a tree (the SPDX texts prepared first). */
export async function scanLicenses(input: ScanInput, signal?: AbortSignal): Promise<ScanReport> {
  await prepareSpdxReferences();
  signal?.throwIfAborted();
  const report = licenseReport(input);
  const oversized = input.files
    .filter((file) => file.oversized && isLicenseFile(file.path))
    .map((file) => fileNotScanned(file, input.maxFileBytes));
  const findings = report.licenses.map((entry) => findingOf(entry, input)).filter((finding) => finding !== null);
  return { findings: [...oversized, ...findings], detail: summary(report.licenses) };
}

/** The connector on the calling thread (the chain runs it in a vetting worker: worker-connectors.ts). */
export const licenseConnector: Connector = {
  name: 'license',
  description:
    'Licenses of LICENSE files (by SPDX text similarity) and manifest `license` fields, against the allow and ban lists',
  scan: (input, _subject, signal) => scanLicenses(input, signal),
};
