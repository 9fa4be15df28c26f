// Writes docs/configuration.md from the configuration description (npm run docs:config);
// test/unit/docs/docs.test.ts fails when the page is out of date.
import { writeFileSync } from 'node:fs';
import { builtNote, configKeys, type ConfigKeyInfo } from '../src/adapters/config/describe.ts';

export function configurationPage(): string {
  const escape = (text: string) => text.replaceAll('|', '\\|').replaceAll('<', '&lt;');
  const keys = configKeys();
  const rows = keys.map(
    (key) =>
      `| \`${key.key}\` | ${escape(key.defaultText)} | ${key.env ? `\`${key.env}\`` : '(file only)'} | ` +
      `${builtNote(key) === '' ? 'yes' : escape(builtNote(key))} | ${escape(key.description)} |`,
  );
  const values = keys.flatMap((key) =>
    typeof key.built === 'object'
      ? key.built.notBuiltValues.map(
          (value) => `\`${key.key}: ${value}\` (the value; the key's other values are built)`,
        )
      : [],
  );
  return [
    '# Configuration',
    '',
    'Generated from `src/adapters/config/schema.ts` by `npm run docs:config`; `gateway config` prints the same.',
    'Keys nest under `gateway:` in the YAML file; each listed variable overrides its key; ' +
      '`PORT` overrides `gateway.server.port`.',
    '',
    '## Not built yet',
    '',
    'These keys are accepted and validated, but the features that would read them do not exist yet: setting one',
    'has no effect, and the gateway logs a warning naming the key at startup',
    '(`<key>: not built yet: the setting has no effect`).',
    '',
    ...notBuiltList([...notBuiltBlocks(keys), ...values]),
    '',
    '## Keys',
    '',
    '| Key | Default | Environment | Built | Meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** The keys not built, a whole block as `block.*` when none of its keys is built. */
function notBuiltBlocks(keys: readonly ConfigKeyInfo[]): string[] {
  const blockOf = (key: string) => key.slice(0, key.lastIndexOf('.'));
  const items: string[] = [];
  for (const key of keys.filter((k) => k.built === 'no')) {
    const block = blockOf(key.key);
    const siblings = keys.filter((k) => blockOf(k.key) === block);
    const whole = siblings.length > 1 && siblings.every((k) => k.built === 'no');
    const item = whole ? `\`${block}.*\`` : `\`${key.key}\``;
    if (!items.includes(item)) items.push(item);
  }
  return items;
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync('docs/configuration.md', configurationPage());

/** The list of what is not built, or a line saying that everything is. */
function notBuiltList(items: readonly string[]): string[] {
  return items.length === 0 ? ['None at present: every key has effect.'] : items.map((item) => `- ${item}`);
}
