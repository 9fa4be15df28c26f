// The portal's "API client typed from the gateway's own OpenAPI document (openapi-typescript +
// openapi-fetch)". The committed types must be the ones the current routes produce, or the portal would
// compile against an API that no longer exists.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { openApiTypes, typesFile } from '../../../scripts/openapi-types.ts';

t.test('portal/src/api/openapi.d.ts is generated from the OpenAPI document as the routes stand', async (t) => {
  const generated = await openApiTypes();
  t.match(generated, /"\/api\/v1\/marketplaces": \{/, 'the document names the API routes');
  t.ok(
    readFileSync(typesFile, 'utf8') === generated,
    `${typesFile} is current (when this fails: npm run portal:types, then fix what no longer compiles)`,
  );
});
