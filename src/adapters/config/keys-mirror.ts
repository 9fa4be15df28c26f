// gateway.mirror.* (docs/mirror.md): the read-only forge mirror of what the gateway serves.
import { mirrorUrlProblem } from '../../domain/mirror/mirror-url.ts';
import { parseSecretReference } from '../../domain/kernel/secret-reference.ts';
import { g } from './key-values.ts';
import { optionalText } from './key-spec.ts';

export const mirrorKeys = {
  mirror: {
    url: optionalText(
      g('mirror.url'),
      'Read-only forge mirror: a URL template where {name} stands for each served marketplace and the catalog ' +
        '(e.g. https://forge.example/mirror/{name}.git; http or https, no credentials in it). refs/heads/main and ' +
        'refs/snapshots/* are pushed there after each change of what is served. Unset means no mirror.',
      { check: mirrorUrlProblem },
    ),
    credentials: optionalText(
      g('mirror.credentials'),
      'Where the mirror push credentials are: env:NAME or file:/absolute/path, holding user:password (a forge ' +
        'token as the password). Sent as HTTP Basic in a header, never in a URL, argument, log or report. Unset ' +
        'means the mirror is pushed without authentication.',
      {
        secret: true,
        check: (text) => {
          const parsed = parseSecretReference(text);
          return 'error' in parsed ? parsed.error : null;
        },
      },
    ),
  },
};
