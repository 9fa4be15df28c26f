import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { rejectionCodes } from '../../../src/domain/kernel/rejection.ts';
import { configurationPage } from '../../../scripts/config-docs.ts';
import { apiPage, apiPageText } from '../../../scripts/api-docs.ts';

t.test('docs/configuration.md lists every key as the loader knows it (run npm run docs:config)', async (t) => {
  t.equal(readFileSync('docs/configuration.md', 'utf8'), configurationPage());
});

t.test("docs/api.md is the gateway's OpenAPI document as npm run docs:api writes it", async (t) => {
  const page = await apiPageText();
  t.equal(readFileSync(apiPage, 'utf8'), page, 'run npm run docs:api');
  t.match(page, /^### `POST \/api\/v1\/snapshots\/\{id\}\/approve`$/m, 'each operation has its heading');
  t.match(page, /^Machine scope: `marketplaces:register`\.$/m, 'with the machine scope that opens it');
  t.match(page, /^Status codes: 201; 400; 403; 409; 422; 502\.$/m, 'and its status codes');
});

t.test('docs/configuration.md says which keys are not built yet', async (t) => {
  const page = configurationPage();
  const section = page.slice(page.indexOf('## Not built yet'), page.indexOf('## Keys'));
  t.notOk(section.includes('gateway.storage'), 'the object-store backend is built');
  t.notOk(section.includes('audit-export'), 'the pull export and the push to audit sinks are built');
  t.notOk(section.includes('gateway.webhooks'), 'outbound webhooks are built');
  t.match(page, /^\| `gateway\.webhooks\.max-attempts` \|.*\| yes \|/m);
  t.notOk(section.includes('gateway.retention'), 'retention is built');
  t.notOk(section.includes('gateway.estate'), 'the estate file is built');
  t.match(page, /^\| `gateway\.estate\.file` \|.*\| yes \|/m);
  t.match(page, /^\| `gateway\.retention\.poll-interval` \|.*\| yes \|/m);
  t.notOk(section.includes('gateway.mirror'), 'the forge mirror is built');
  t.match(page, /^\| `gateway\.mirror\.url` \|.*\| yes \|/m);
  t.match(page, /^\| `gateway\.storage\.object-store\.bucket` \|.*\| yes \|/m);
  t.match(page, /^\| `gateway\.audit-export\.batch-size` \|.*\| yes \|/m);
  t.match(page, /^\| `gateway\.audit-export\.lag` \|.*\| yes \|/m);
});

t.test('every problem type dereferences to a page (decision 1: problem types)', async (t) => {
  for (const code of rejectionCodes) t.ok(existsSync(`docs/problems/${code}.md`), code);
});

t.test('the README gives the two set-up commands and .ci/run calls its test command', async (t) => {
  const readme = readFileSync('README.md', 'utf8');
  t.match(readme, /npm ci && npm start/);
  t.match(readme, /npm ci && npm test/);
  t.match(readFileSync('.ci/run', 'utf8'), /^npm test$/m);
});
