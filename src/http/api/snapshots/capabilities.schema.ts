import { Type } from 'typebox';
import { capabilityKinds } from '../../../domain/vetting/capabilities.ts';
import { literalUnion } from '../../schemas/common.schema.ts';

/** One thing a plugin can do once installed (src/domain/vetting/capabilities.ts). */
export const Capability = Type.Object({
  kind: literalUnion(capabilityKinds),
  value: Type.String({
    description:
      'contacts-host: a host, or `(computed)` when the script builds it at run time; reads-env: a variable, ' +
      '`*` for the whole environment; reads-credentials: a path or keychain command; runs-program: a program ' +
      'name, or `(computed)`; writes-outside-project: a path (`~` for the home directory); starts-mcp-server: ' +
      'the package and version, image, endpoint or command line the server launches',
  }),
  events: Type.Array(Type.String(), {
    description: 'Hook events whose command line runs it, directly or through wrappers; empty when no hook is shown to',
  }),
  sources: Type.Array(Type.Object({ path: Type.String(), line: Type.Integer({ minimum: 1 }) })),
});
