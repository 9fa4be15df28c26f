// The portal shows enums the API answers in words; `humanize` must read any casing the API uses.
import t from 'tap';
import { humanize, labelFrom, snapshotStateLabels } from '../../../portal/src/components/labels.ts';

t.test('humanize turns upper snake, kebab and camel case into a sentence-case phrase', async (t) => {
  t.equal(humanize('CLEAR_WITH_WAIVERS'), 'Clear with waivers');
  t.equal(humanize('ingest-rejected'), 'Ingest rejected');
  t.equal(humanize('BLOCKED'), 'Blocked');
  t.equal(humanize('mcpServer'), 'MCP server');
  t.equal(humanize('OK'), 'OK');
  t.equal(humanize('marketplace.json'), 'Marketplace JSON');
  t.equal(humanize('oidc-login'), 'OIDC login');
  t.equal(humanize(''), '');
});

t.test('labelFrom prefers a named label and falls back to humanize', async (t) => {
  t.equal(labelFrom(snapshotStateLabels, 'held'), 'Held for review');
  t.equal(labelFrom(snapshotStateLabels, 'some_new_state'), 'Some new state');
});
