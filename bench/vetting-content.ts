// Plugin content for the vetting benchmark, shaped like what published Claude Code plugins ship: a manifest,
// a README and a LICENSE; hooks.json running a shell, a Python and a JavaScript hook script (executable,
// reading the hook's JSON on stdin); an .mcp.json (every other plugin) with a pinned npx server, a pinned uvx
// server and a remote one; skills (SKILL.md with frontmatter, a reference, now and then a helper script in
// one of the three languages); commands and agents with their frontmatter. The prose is English instruction
// text (the words the instructions connector looks at: the user, the system, environment variables, keys,
// URLs, inline code), so that what a connector must read is read. Nothing in it is meant to block: the remote
// MCP server is reported (MEDIUM), as it should be.
import { sizeOf, type PluginContent, type TextMaker } from './git-repos.ts';

const instructionSentences = [
  'When the user asks for a review, read the changed files first and summarise what each change does.',
  'Use the `Bash` tool to run `npm test` and report the failures with their file and line.',
  'Never commit secrets; read the API key from the environment variables the user has set.',
  'If the build fails, explain why in one paragraph and suggest the smallest fix.',
  'Prefer small, focused commits with a message that says what changed and why.',
  'You are a senior engineer who reviews pull requests for correctness, security and clarity.',
  'Ask the user before deleting files or rewriting history.',
  'Check the system requirements in the README before installing anything.',
  'Keep the content of generated files short and consistent with the existing style.',
  'Do not guess: when the documentation is unclear, say so and link to it.',
  'Read `package.json` to find the test and lint scripts the project uses.',
  'Output a table with the file, the line and the problem found.',
  'The hook blocks a command that would push to the main branch without review.',
  'Set `LOG_LEVEL` to `debug` to see every request the server makes.',
  'Format the code with the formatter the repository already uses.',
  'Explain the trade-offs of each option and recommend one.',
  'Run the linter on the changed files only; a full run takes too long.',
  'Return a short summary first, then the details, grouped by severity.',
];

const docsUrls = [
  'https://docs.anthropic.com/en/docs/claude-code/plugins',
  'https://code.claude.com/docs/en/hooks',
  'https://modelcontextprotocol.io/introduction',
  'https://github.com/acme-tools/review-kit/blob/main/CONTRIBUTING.md',
  'https://docs.python.org/3/library/json.html',
  'https://nodejs.org/api/fs.html',
];

/** Markdown instruction text: headings, English paragraphs with inline code, lists, a fenced command, links, a table. */
function instructions(text: TextMaker, random: () => number, bytes: number, title: string): string {
  const sentence = () =>
    random() < 0.55
      ? instructionSentences[Math.floor(random() * instructionSentences.length)]!
      : text.sentence().replace(/ (\w+)\.$/, ' `$1`.');
  let out = `# ${title}\n\n`;
  while (out.length < bytes) {
    const r = random();
    if (r < 0.12) out += `## ${text.sentence().slice(0, 40)}\n\n`;
    else if (r < 0.32)
      out += `${Array.from({ length: 3 + Math.floor(random() * 4) }, () => `- ${sentence()}`).join('\n')}\n\n`;
    else if (r < 0.42)
      out += `\`\`\`bash\n${text.word()} --${text.word()} ./${text.word()}/${text.word()}.json\ngit diff --stat HEAD~1\n\`\`\`\n\n`;
    else if (r < 0.47)
      out += `See [the documentation](${docsUrls[Math.floor(random() * docsUrls.length)]!}) for details.\n\n`;
    else if (r < 0.5)
      out += `| Option | Meaning |\n| --- | --- |\n| \`--${text.word()}\` | ${text.sentence()} |\n| \`--${text.word()}\` | ${text.sentence()} |\n\n`;
    else out += `${Array.from({ length: 2 + Math.floor(random() * 4) }, () => sentence()).join(' ')}\n\n`;
  }
  return out;
}

/** A hook script as plugins write them: the event's JSON on stdin, a decision on stdout or exit 2, helpers below. */
function hookScript(language: 'sh' | 'py' | 'js', text: TextMaker, bytes: number): string {
  const helpers: string[] = [];
  let size = 0;
  const helper = (): string => {
    const name = `${text.word()}_${text.word()}`;
    if (language === 'sh')
      return `${name}() {\n  # ${text.sentence()}\n  local target="$1"\n  if [[ -f "$target" ]]; then\n    grep -n "${text.word()}" "$target" || true\n  fi\n}\n`;
    if (language === 'py')
      return `def ${name}(path: str) -> list[str]:\n    """${text.sentence()}"""\n    if not os.path.exists(path):\n        return []\n    with open(path, encoding="utf-8") as handle:\n        return [line.rstrip() for line in handle if "${text.word()}" in line]\n`;
    return `function ${name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}(file) {\n  // ${text.sentence()}\n  if (!fs.existsSync(file)) return [];\n  return fs.readFileSync(file, 'utf8').split('\\n').filter((line) => line.includes('${text.word()}'));\n}\n`;
  };
  while (size < bytes * 0.6) {
    const h = helper();
    helpers.push(h);
    size += h.length;
  }
  if (language === 'sh')
    return `#!/usr/bin/env bash
# PreToolUse hook: refuses a Bash command that would rewrite published history.
set -euo pipefail

input="$(cat)"
command="$(printf '%s' "$input" | jq -r '.tool_input.command // empty')"
cwd="$(printf '%s' "$input" | jq -r '.cwd // empty')"

${helpers.join('\n')}
if [[ "$command" =~ git[[:space:]]+push[[:space:]].*--force ]]; then
  echo "Force-pushing is not allowed from this session; push a new branch instead." >&2
  exit 2
fi
if [[ -n "$cwd" && -d "$cwd/.git" ]]; then
  branch="$(git -C "$cwd" rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)"
  echo "{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PreToolUse\\", \\"additionalContext\\": \\"on branch $branch\\"}}"
fi
exit 0
`;
  if (language === 'py')
    return `#!/usr/bin/env python3
"""PostToolUse hook: formats the file Claude just edited with the project's formatter."""
import json
import os
import shutil
import subprocess
import sys


${helpers.join('\n\n')}

def main() -> int:
    event = json.load(sys.stdin)
    path = event.get("tool_input", {}).get("file_path", "")
    if not path.endswith(".py") or shutil.which("ruff") is None:
        return 0
    result = subprocess.run(["ruff", "format", path], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(result.stderr, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
  return `#!/usr/bin/env node
// SessionStart hook: tells Claude which package scripts the project has.
const fs = require('node:fs');
const path = require('node:path');

${helpers.join('\n')}
let raw = '';
process.stdin.on('data', (chunk) => (raw += chunk));
process.stdin.on('end', () => {
  const event = JSON.parse(raw || '{}');
  const manifest = path.join(event.cwd || process.cwd(), 'package.json');
  const scripts = fs.existsSync(manifest) ? Object.keys(JSON.parse(fs.readFileSync(manifest, 'utf8')).scripts || {}) : [];
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: \`scripts: \${scripts.join(', ')}\` } }));
});
`;
}

/** A helper script a skill ships (run by the model through Bash, not by a hook). */
function skillScript(language: 'sh' | 'py' | 'js', text: TextMaker, bytes: number): string {
  return text.script(bytes, language);
}

const mcpConfig = (plugin: string) =>
  `${JSON.stringify(
    {
      mcpServers: {
        [`${plugin.slice(0, 20)}-github`]: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github@2025.4.8'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' },
        },
        [`${plugin.slice(0, 20)}-fetch`]: { command: 'uvx', args: ['mcp-server-fetch==2025.4.7'] },
        [`${plugin.slice(0, 20)}-docs`]: {
          type: 'http',
          url: 'https://mcp.acme-tools.dev/mcp',
          headers: { Authorization: 'Bearer ${ACME_DOCS_TOKEN}' },
        },
      },
    },
    null,
    2,
  )}\n`;

const mit = `MIT License

Copyright (c) 2025 Acme Tools

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of
the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
`;

const languages = ['sh', 'py', 'js'] as const;

/** One plugin's files: about three in four Markdown, one in five scripts, the rest JSON and the licence. */
export const realisticPluginFiles: PluginContent = Object.assign(
  (plugin: string, count: number, text: TextMaker, random: () => number): Record<string, string> => {
    const root = `plugins/${plugin}`;
    const files: Record<string, string> = {
      [`${root}/.claude-plugin/plugin.json`]: `${JSON.stringify(
        {
          name: plugin,
          version: '1.4.2',
          description: text.sentence(),
          author: { name: 'Acme Tools', email: 'plugins@acme-tools.dev' },
          homepage: 'https://github.com/acme-tools/review-kit',
          repository: 'https://github.com/acme-tools/review-kit',
          license: 'MIT',
          keywords: [text.word(), text.word()],
        },
        null,
        2,
      )}\n`,
      [`${root}/README.md`]: instructions(text, random, sizeOf(random), plugin),
      [`${root}/LICENSE`]: mit,
      [`${root}/hooks/hooks.json`]: `${JSON.stringify(
        {
          description: 'Guards, formatting and session context',
          hooks: {
            PreToolUse: [
              { matcher: 'Bash', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/hooks/guard-push.sh' }] },
            ],
            PostToolUse: [
              {
                matcher: 'Edit|Write|MultiEdit',
                hooks: [
                  { type: 'command', command: 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/format_edit.py"', timeout: 30 },
                ],
              },
            ],
            SessionStart: [
              { hooks: [{ type: 'command', command: 'node "${CLAUDE_PLUGIN_ROOT}/hooks/session-context.js"' }] },
            ],
          },
        },
        null,
        2,
      )}\n`,
      [`${root}/hooks/guard-push.sh`]: hookScript('sh', text, sizeOf(random)),
      [`${root}/hooks/format_edit.py`]: hookScript('py', text, sizeOf(random)),
      [`${root}/hooks/session-context.js`]: hookScript('js', text, sizeOf(random)),
    };
    if (
      plugin.endsWith('0') ||
      plugin.endsWith('2') ||
      plugin.endsWith('4') ||
      plugin.endsWith('6') ||
      plugin.endsWith('8')
    )
      files[`${root}/.mcp.json`] = mcpConfig(plugin);
    let i = 0;
    let skill = '';
    while (Object.keys(files).length < count) {
      const kind = i % 8;
      const name = `${text.word()}-${text.word()}-${i}`;
      if (kind === 0 || kind === 4) {
        skill = name;
        files[`${root}/skills/${skill}/SKILL.md`] =
          `---\nname: ${skill}\ndescription: ${text.sentence()} Use when the user asks to ${text.word()} a ${text.word()}.\n---\n\n${instructions(text, random, sizeOf(random), skill)}`;
      } else if (kind === 1 || kind === 5) {
        files[`${root}/skills/${skill}/references/${text.word()}-${i}.md`] = instructions(
          text,
          random,
          sizeOf(random),
          `${skill} reference`,
        );
      } else if (kind === 2) {
        files[`${root}/commands/${name}.md`] =
          `---\ndescription: ${text.sentence()}\nargument-hint: [${text.word()}] [--${text.word()}]\nallowed-tools: Bash(git diff:*), Bash(npm test:*), Read, Grep\n---\n\n${instructions(text, random, sizeOf(random), name)}\n\nArguments: $ARGUMENTS\n`;
      } else if (kind === 3) {
        files[`${root}/agents/${name}.md`] =
          `---\nname: ${name}\ndescription: ${text.sentence()} Use proactively after code changes.\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\n\n${instructions(text, random, sizeOf(random), name)}`;
      } else {
        // kinds 6 and 7: a skill's helper script, the language turning with each one.
        const language = languages[Math.floor(i / 4) % 3]!;
        const file = language === 'py' ? `${text.word()}_${i}.py` : `${text.word()}-${i}.${language}`;
        files[`${root}/skills/${skill}/scripts/${file}`] = skillScript(language, text, sizeOf(random));
      }
      i++;
    }
    return files;
  },
  { executable: true },
);
