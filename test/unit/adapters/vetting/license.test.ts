import t from 'tap';
import full from 'spdx-license-list/full.js';
import {
  identifyLicenseText,
  isLicenseFile,
  licenseConnector,
  licenseReport,
} from '../../../../src/adapters/vetting/license.connector.ts';
import { aliasesOf, evaluateExpression, evaluateLicense } from '../../../../src/domain/vetting/license.ts';
import { scanInput, type FileContent } from '../../../support/scan-input.ts';

const subject = { snapshotId: 1, marketplace: 'acme', sha: 'a'.repeat(40) };
const scan = (files: Record<string, FileContent>, options: Parameters<typeof scanInput>[1] = {}) =>
  licenseConnector.scan(scanInput(files, options), subject, new AbortController().signal);

// Real texts as a repository carries them: the template's year and holder filled in, rewrapped to 72
// columns (the SPDX texts come with long lines), a markdown title, CRLF line ends for one of them.
const spdxText = (id: string): string => full[id]!.licenseText;
const rewrap = (text: string): string =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => {
      const lines: string[] = [];
      let line = '';
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        if (line.length + word.length > 72) [lines[lines.length], line] = [line, word];
        else line = line === '' ? word : `${line} ${word}`;
      }
      return [...lines, line].join('\n');
    })
    .join('\n\n');
const mit = rewrap(spdxText('MIT').replace('<year> <copyright holders>', '2024 Acme Tools, Inc.')).replace(
  'MIT License',
  '# The MIT License (MIT)',
);
const apache = spdxText('Apache-2.0')
  .replace('[yyyy] [name of copyright owner]', '2023 Example Corp')
  .replace(/\n/g, '\r\n');
const apacheWithoutAppendix = spdxText('Apache-2.0').split('APPENDIX:')[0]!;
const bsd3 = rewrap(
  spdxText('BSD-3-Clause')
    .replace('<year> <owner>', '2019-2024, Jane Doe')
    .replace('the copyright holder nor', 'Jane Doe nor'),
);
const gpl3 = spdxText('GPL-3.0-or-later');
const unknownText =
  'Acme Internal License\n\nCopyright 2024 Acme\n\nThis software is proprietary. You may not copy, modify or distribute it\n' +
  'without the written permission of Acme. All rights reserved. Contact legal@acme.example for terms.\n';

t.test(
  'LICENSE file names: LICENSE, LICENCE, COPYING with or without extension, at any depth; not source files',
  async (t) => {
    for (const path of [
      'LICENSE',
      'LICENSE.md',
      'LICENSE.txt',
      'plugins/a/license',
      'LICENCE',
      'Licence.md',
      'COPYING',
      'COPYING.LESSER',
      'LICENSE-MIT',
      'x/y/LICENSE-APACHE.txt',
    ]) {
      t.ok(isLicenseFile(path), path);
    }
    for (const path of [
      'src/license.ts',
      'license.json',
      'LICENSES',
      'licenses/MIT.txt',
      'README.md',
      'docs/licensing.md',
      'NOTLICENSE',
    ]) {
      t.notOk(isLicenseFile(path), path);
    }
  },
);

t.test('real license texts are identified by similarity despite holder, year and formatting', async (t) => {
  t.equal(identifyLicenseText(mit)?.[0], 'MIT');
  t.equal(identifyLicenseText(apache)?.[0], 'Apache-2.0', 'CRLF, holder filled in');
  t.equal(identifyLicenseText(apacheWithoutAppendix)?.[0], 'Apache-2.0', 'without the how-to-apply appendix');
  t.equal(identifyLicenseText(bsd3)?.[0], 'BSD-3-Clause', 'holder named in clause 3');
  t.equal(identifyLicenseText(spdxText('BSD-2-Clause'))?.[0], 'BSD-2-Clause', 'BSD-2 is not taken for BSD-3');
  t.equal(identifyLicenseText(spdxText('ISC'))?.[0], 'ISC');
  t.strictSame(
    identifyLicenseText(gpl3),
    ['GPL-3.0-only', 'GPL-3.0', 'GPL-3.0+', 'GPL-3.0-or-later'],
    'the GPL text cannot tell only from or-later: reported as -only, every id of the same text kept for matching',
  );
  t.equal(identifyLicenseText(unknownText), null);
  t.equal(identifyLicenseText(''), null);
  t.equal(identifyLicenseText(mit.slice(0, 300)), null, 'a fragment is not the license');
});

t.test('identification is fast once the SPDX texts are prepared', async (t) => {
  identifyLicenseText('prepare');
  const texts = [mit, apache, bsd3, gpl3, unknownText];
  const started = performance.now();
  for (let i = 0; i < 20; i += 1) for (const text of texts) identifyLicenseText(text);
  const perFile = (performance.now() - started) / (20 * texts.length);
  t.comment(`${perFile.toFixed(2)} ms per LICENSE file`);
  t.ok(perFile < 50, `${perFile.toFixed(2)} ms per file`);
});

t.test('the report: LICENSE files at any depth, path:1, declared null', async (t) => {
  const report = licenseReport(
    scanInput({
      LICENSE: mit,
      'plugins/b/LICENSE.txt': apache,
      'plugins/c/COPYING': bsd3,
      'plugins/d/LICENSE.md': unknownText,
      'README.md': mit,
    }),
  );
  t.strictSame(report, {
    licenses: [
      { spdxId: 'MIT', source: 'file', location: 'LICENSE:1', declared: null, evaluation: 'OK' },
      { spdxId: 'Apache-2.0', source: 'file', location: 'plugins/b/LICENSE.txt:1', declared: null, evaluation: 'OK' },
      { spdxId: 'BSD-3-Clause', source: 'file', location: 'plugins/c/COPYING:1', declared: null, evaluation: 'OK' },
      { spdxId: null, source: 'file', location: 'plugins/d/LICENSE.md:1', declared: null, evaluation: 'UNKNOWN' },
    ],
    allowed: [],
    banned: [],
  });
  t.strictSame(
    licenseReport(scanInput({ 'README.md': 'hello' })),
    { licenses: [], allowed: [], banned: [] },
    'no license information at all',
  );
});

const marketplace = [
  '{',
  '  "name": "acme",',
  '  "owner": { "name": "Acme" },',
  '  "plugins": [',
  '    { "name": "a", "source": "./plugins/a", "license": "MIT" },',
  '    { "name": "b", "source": "./plugins/b", "license": "GPL-3.0-only" },',
  '    { "name": "c", "source": "./plugins/c" },',
  '    {',
  '      "name": "d", "source": "./plugins/d",',
  '      "license": "MIT OR Apache-2.0"',
  '    },',
  '    { "name": "e", "source": "./plugins/e", "license": "Apache 2" },',
  '    { "name": "f", "source": "./plugins/f", "license": "MIT" }',
  '  ]',
  '}',
].join('\n');
const pluginJson = '{\n  "name": "a",\n  "version": "1.0.0",\n  "license": "GPL-3.0+"\n}\n';

t.test('manifest licenses: marketplace entries and plugin.json, with the line of the license key', async (t) => {
  const report = licenseReport(
    scanInput({ '.claude-plugin/marketplace.json': marketplace, 'plugins/a/.claude-plugin/plugin.json': pluginJson }),
  );
  t.strictSame(report.licenses, [
    {
      spdxId: 'MIT',
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:5',
      declared: 'MIT',
      evaluation: 'OK',
    },
    {
      spdxId: 'GPL-3.0-only',
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:6',
      declared: 'GPL-3.0-only',
      evaluation: 'OK',
    },
    {
      spdxId: 'MIT',
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:10',
      declared: 'MIT OR Apache-2.0',
      evaluation: 'OK',
    },
    {
      spdxId: null,
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:12',
      declared: 'Apache 2',
      evaluation: 'UNKNOWN',
    },
    {
      spdxId: 'MIT',
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:13',
      declared: 'MIT',
      evaluation: 'OK',
    },
    {
      spdxId: 'GPL-3.0+',
      source: 'manifest',
      location: 'plugins/a/.claude-plugin/plugin.json:4',
      declared: 'GPL-3.0+',
      evaluation: 'OK',
    },
  ]);
});

t.test('odd manifests: non-string license, unparsable JSON, an entry that is not an object', async (t) => {
  const odd = JSON.stringify({
    plugins: [{ name: 'a', license: { type: 'MIT' } }, null, 'x', { name: 'b', license: '' }],
  });
  t.strictSame(licenseReport(scanInput({ '.claude-plugin/marketplace.json': odd })).licenses, [
    {
      spdxId: null,
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:1',
      declared: '{"type":"MIT"}',
      evaluation: 'UNKNOWN',
    },
    {
      spdxId: null,
      source: 'manifest',
      location: '.claude-plugin/marketplace.json:1',
      declared: '',
      evaluation: 'UNKNOWN',
    },
  ]);
  t.strictSame(
    licenseReport(scanInput({ '.claude-plugin/plugin.json': '{"license": ' })).licenses,
    [],
    'unparsable: nothing declared',
  );
});

t.test('evaluation: ban → BANNED, a non-empty allow list without it → NOT_ALLOWED, unknown → UNKNOWN', async (t) => {
  const lists = (allow: string[], ban: string[]) => ({ allow, ban });
  t.equal(evaluateLicense(['MIT'], lists([], [])), 'OK');
  t.equal(evaluateLicense(['MIT'], lists([], ['mit'])), 'BANNED', 'ids compare case-insensitively');
  t.equal(evaluateLicense(['MIT'], lists(['MIT'], ['MIT'])), 'BANNED', 'the ban wins');
  t.equal(evaluateLicense(['MIT'], lists(['Apache-2.0'], [])), 'NOT_ALLOWED');
  t.equal(
    evaluateLicense(null, lists(['MIT'], ['GPL-3.0-only'])),
    'UNKNOWN',
    'the unknown-license state whatever the lists',
  );
  t.equal(evaluateLicense(['GPL-3.0'], lists([], ['GPL-3.0-only'])), 'BANNED', 'deprecated GPL-3.0 is GPL-3.0-only');
  t.equal(evaluateLicense(['GPL-3.0+'], lists([], ['GPL-3.0-or-later'])), 'BANNED', 'GPL-3.0+ is GPL-3.0-or-later');
  t.equal(
    evaluateLicense(['GPL-3.0-only'], lists([], ['GPL-3.0-or-later'])),
    'OK',
    'only and or-later are distinct licenses',
  );
  t.equal(evaluateLicense(['LicenseRef-Acme'], lists([], [])), 'UNKNOWN', 'a custom reference has unknown terms');
  t.equal(evaluateLicense(['LicenseRef-Acme'], lists(['LicenseRef-Acme'], [])), 'OK', 'unless allowed by name');
  t.strictSame(aliasesOf('LGPL-2.1+'), ['LGPL-2.1-or-later', 'LGPL-2.1+']);
  t.strictSame(aliasesOf('Apache-2.0'), ['Apache-2.0']);
});

t.test('compound expressions: OR takes the alternative that passes best, AND the worst', async (t) => {
  const or = { left: { license: 'GPL-3.0-only' }, conjunction: 'or', right: { license: 'MIT' } } as const;
  const and = { left: { license: 'MIT' }, conjunction: 'and', right: { license: 'GPL-3.0-only' } } as const;
  t.strictSame(evaluateExpression(or, { allow: [], ban: ['GPL-3.0-only'] }), { spdxId: 'MIT', evaluation: 'OK' });
  t.strictSame(
    evaluateExpression(or, { allow: [], ban: [] }),
    { spdxId: 'GPL-3.0-only', evaluation: 'OK' },
    'a tie keeps the leftmost',
  );
  t.strictSame(evaluateExpression(or, { allow: [], ban: ['MIT', 'GPL-3.0-only'] }), {
    spdxId: 'GPL-3.0-only',
    evaluation: 'BANNED',
  });
  t.strictSame(evaluateExpression(and, { allow: [], ban: ['GPL-3.0-only'] }), {
    spdxId: 'GPL-3.0-only',
    evaluation: 'BANNED',
  });
  t.strictSame(evaluateExpression(and, { allow: ['MIT'], ban: [] }), {
    spdxId: 'GPL-3.0-only',
    evaluation: 'NOT_ALLOWED',
  });
  t.strictSame(
    evaluateExpression(
      { license: 'GPL-2.0-only', exception: 'Classpath-exception-2.0' },
      { allow: [], ban: ['GPL-2.0-only'] },
    ),
    { spdxId: 'GPL-2.0-only', evaluation: 'BANNED' },
    'WITH: the license is what is evaluated',
  );
});

t.test('the connector: no findings for OK licenses, a summary detail', async (t) => {
  const result = await scan({
    LICENSE: mit,
    '.claude-plugin/marketplace.json': JSON.stringify({ plugins: [{ name: 'a', license: 'Apache-2.0' }] }),
  });
  t.strictSame(result, { findings: [], detail: '2 licenses: MIT (file), Apache-2.0 (manifest)' });
  t.strictSame(await scan({ 'README.md': 'hi' }), { findings: [], detail: 'no license information' });
});

t.test('the connector: banned and not-allowed licenses are HIGH, unknown ones LOW', async (t) => {
  const files = {
    LICENSE: gpl3,
    'plugins/x/LICENSE': unknownText,
    '.claude-plugin/marketplace.json': marketplace,
    'plugins/a/.claude-plugin/plugin.json': pluginJson,
  };
  const result = await scan(files, { ban: ['GPL-3.0-or-later'], allow: ['MIT', 'Apache-2.0', 'GPL-3.0-only'] });
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['license-banned', 'HIGH', 'LICENSE:1'],
      ['license-unknown', 'LOW', 'plugins/x/LICENSE:1'],
      ['license-unknown', 'LOW', '.claude-plugin/marketplace.json:12'],
      ['license-banned', 'HIGH', 'plugins/a/.claude-plugin/plugin.json:4'],
    ],
    'a GPL text is banned by either GPL-3.0 form; GPL-3.0-only declared in a manifest is allowed',
  );
  t.match(result.findings[0]!.message, /license file identified as GPL-3\.0-only: GPL-3\.0-only is banned/);
  t.match(result.findings[1]!.message, /matches no SPDX license/);
  t.match(result.findings[2]!.message, /license "Apache 2" is not a valid SPDX license expression/);
  t.match(result.findings[3]!.message, /license "GPL-3\.0\+": GPL-3\.0\+ is banned/);

  const strict = await scan({ '.claude-plugin/marketplace.json': marketplace }, { allow: ['Apache-2.0'] });
  t.strictSame(
    strict.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['license-not-allowed', 'HIGH', '.claude-plugin/marketplace.json:5'],
      ['license-not-allowed', 'HIGH', '.claude-plugin/marketplace.json:6'],
      ['license-unknown', 'LOW', '.claude-plugin/marketplace.json:12'],
      ['license-not-allowed', 'HIGH', '.claude-plugin/marketplace.json:13'],
    ],
    'MIT OR Apache-2.0 passes as Apache-2.0',
  );
  t.match(strict.findings[0]!.message, /license "MIT": MIT is not on the allow list/);
  t.equal(
    licenseReport(scanInput({ '.claude-plugin/marketplace.json': marketplace }, { allow: ['Apache-2.0'] })).licenses[2]!
      .spdxId,
    'Apache-2.0',
  );
});

t.test('an oversized or binary LICENSE file is unknown; the oversized one is also file-not-scanned', async (t) => {
  const result = await scan({ LICENSE: mit, COPYING: Buffer.from([0, 1, 2]) }, { maxFileBytes: 500 });
  t.strictSame(
    result.findings.map((f) => [f.id, f.severity, f.location]),
    [
      ['file-not-scanned', 'INFO', 'LICENSE:1'],
      ['license-unknown', 'LOW', 'LICENSE:1'],
      ['license-unknown', 'LOW', 'COPYING:1'],
    ],
  );
  t.match(result.findings[1]!.message, /not read/);
  t.equal(result.detail, '2 licenses: unknown (file), unknown (file)');
});

t.test('the lists are echoed and the report follows them on every call', async (t) => {
  const files = { LICENSE: mit };
  t.match(licenseReport(scanInput(files, { allow: ['MIT'], ban: ['GPL-3.0-only'] })), {
    allowed: ['MIT'],
    banned: ['GPL-3.0-only'],
    licenses: [{ evaluation: 'OK' }],
  });
  t.match(licenseReport(scanInput(files, { ban: ['MIT'] })), { licenses: [{ spdxId: 'MIT', evaluation: 'BANNED' }] });
});

t.test('an aborted scan throws', async (t) => {
  const controller = new AbortController();
  controller.abort();
  await t.rejects(licenseConnector.scan(scanInput({ LICENSE: mit }), subject, controller.signal));
});
