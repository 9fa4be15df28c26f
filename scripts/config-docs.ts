// Writes docs/configuration.md from the configuration key table (npm run docs:config);
// test/unit/docs/configuration.test.ts fails when the page is out of date.
import { writeFileSync } from 'node:fs';
import { configKeys } from '../src/adapters/config/load.ts';

export function configurationPage(): string {
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const rows = configKeys().map((key) =>
    `| \`${key.key}\` | ${escape(key.defaultText)} | ${key.env ? `\`${key.env}\`` : '(file only)'} | ${escape(key.description)} |`);
  return [
    '# Configuration',
    '',
    'Generated from `src/adapters/config/schema.ts` by `npm run docs:config`; `gateway config` prints the same.',
    'Keys nest under `gateway:` in the YAML file; each listed variable overrides its key; `PORT` overrides `gateway.server.port`.',
    '',
    '| Key | Default | Environment | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync('docs/configuration.md', configurationPage());
