// gateway.estate.* (docs/estate.md): the declarative estate file, reconciled at startup and on demand.
import { g } from './key-values.ts';
import { optionalText } from './key-spec.ts';

export const estateFileKeys = {
  estate: {
    file: optionalText(
      g('estate.file'),
      'Declarative estate (YAML: marketplaces, grants, webhooks, audit sinks; docs/estate.md), reconciled additively ' +
        'at startup on the leader and by POST /api/v1/estate/reconcile; unset means none. Check a file with ' +
        '`gateway estate check FILE`.',
    ),
  },
};
