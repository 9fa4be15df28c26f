// The parsers the hooks connector reads scripts with: tree-sitter's grammars for bash, Python,
// JavaScript, TypeScript and TSX (the .wasm files their packages ship) run by web-tree-sitter. Loading
// the WebAssembly is I/O, so it lives here; the domain receives synchronous parse functions that return
// plain syntax trees (ShellNode), and walks those. Only what the domain reads becomes plain data:
// comments, the quotes of strings, TypeScript's types and statements that are a lone string (a
// docstring, 'use strict') are left out of the tree.
import { createRequire } from 'node:module';
import { Language, Parser, type TreeCursor } from 'web-tree-sitter';
import type { Parsers, ShellNode, ShellParser } from '../../domain/vetting/connectors/hooks-syntax.ts';
import { lineIndex } from '../../domain/plugin/json-document.ts';

const require = createRequire(import.meta.url);

const leaf: readonly ShellNode[] = [];

/** What a grammar's plain tree leaves out, and whether an operator token (`+`, `%`, `in`) is kept. */
type Shape = Readonly<{ skipped: ReadonlySet<string>; operators: boolean }>;

const shellShape: Shape = {
  // Comments run nothing, and a string's text is read from the string.
  skipped: new Set(['comment', 'string_content', 'heredoc_content']),
  operators: false,
};
const pythonShape: Shape = {
  skipped: new Set([
    'comment',
    'string_start',
    'string_end',
    'type',
    'line_continuation',
    'escape_sequence',
    'escape_interpolation',
  ]),
  operators: true,
};
const javascriptShape: Shape = {
  skipped: new Set([
    'comment',
    'hash_bang_line',
    // TypeScript's types say nothing of what runs.
    'type_annotation',
    'type_arguments',
    'type_parameters',
    'type_alias_declaration',
    'interface_declaration',
    'ambient_declaration',
    'implements_clause',
    'predefined_type',
    'opting_type_annotation',
    'omitting_type_annotation',
    'asserts_annotation',
    'type_predicate_annotation',
    'accessibility_modifier',
    'override_modifier',
  ]),
  operators: true,
};

/** A grammar's node types by id, read once: the type's name, and whether it is kept (named, not skipped). */
type Types = Readonly<{ names: readonly string[]; kept: readonly boolean[]; fields: readonly (string | null)[] }>;

function typesOf(language: Language, shape: Shape): Types {
  const names: string[] = [];
  const kept: boolean[] = [];
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const name = language.types[id] ?? 'ERROR';
    names.push(name);
    kept.push(language.nodeTypeIsNamed(id) && !shape.skipped.has(name));
  }
  return { names, kept, fields: language.fields };
}

/** A statement that is only a string (a docstring, a directive): nothing reads it. */
const loneString = (type: string, children: readonly ShellNode[] | null): boolean =>
  type === 'expression_statement' && children?.length === 1 && children[0]!.type === 'string';

type Walk = Readonly<{ cursor: TreeCursor; types: Types; shape: Shape; lineOf: (offset: number) => number }>;

/** The node under the cursor as plain data (the cursor is left where it started). */
function plain(walk: Walk, type: string, field: string | null): ShellNode {
  const { cursor, types, shape } = walk;
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  let children: ShellNode[] | null = null;
  if (cursor.gotoFirstChild()) {
    do {
      const id = cursor.nodeTypeId;
      const childType = types.names[id] ?? 'ERROR';
      // An ERROR node's id is past the grammar's types: it is kept, as every named node is.
      if (!(types.kept[id] ?? true)) {
        if (shape.skipped.has(childType)) continue;
        const fieldName = types.fields[cursor.currentFieldId] ?? null;
        // Operators are anonymous tokens in a field of their own (`left + right`, `x in y`); bash keeps a
        // token the parser inserted where one was missing.
        if (shape.operators ? fieldName !== null : cursor.nodeIsMissing)
          (children ??= []).push({
            type: childType,
            field: fieldName,
            start: cursor.startIndex,
            end: cursor.endIndex,
            line: shape.operators ? 0 : walk.lineOf(cursor.startIndex),
            children: leaf,
          });
        continue;
      }
      const child = plain(walk, childType, types.fields[cursor.currentFieldId] ?? null);
      if (!loneString(childType, child.children)) (children ??= []).push(child);
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return { type, field, start, end, line: walk.lineOf(start), children: children ?? leaf };
}

function parserOf(language: Language, name: string, shape: Shape): ShellParser {
  const parser = new Parser();
  parser.setLanguage(language);
  const types = typesOf(language, shape);
  return (source: string): ShellNode => {
    const tree = parser.parse(source);
    if (tree === null) throw new Error(`the ${name} parser returned no tree`);
    try {
      const cursor = tree.walk();
      return plain(
        { cursor, types, shape, lineOf: lineIndex(source) },
        types.names[cursor.nodeTypeId] ?? 'ERROR',
        null,
      );
    } finally {
      tree.delete();
    }
  };
}

const grammar = (path: string): Promise<Language> => Language.load(require.resolve(path));

let loading: Promise<Parsers> | null = null;

/** Loads every grammar once per process; the parsers it gives are synchronous. */
export function loadSyntaxParsers(): Promise<Parsers> {
  loading ??= (async () => {
    await Parser.init();
    const [bash, python, javascript, typescript, tsx] = await Promise.all([
      grammar('tree-sitter-bash/tree-sitter-bash.wasm'),
      grammar('tree-sitter-python/tree-sitter-python.wasm'),
      grammar('tree-sitter-javascript/tree-sitter-javascript.wasm'),
      grammar('tree-sitter-typescript/tree-sitter-typescript.wasm'),
      grammar('tree-sitter-typescript/tree-sitter-tsx.wasm'),
    ]);
    return {
      bash: parserOf(bash, 'bash', shellShape),
      python: parserOf(python, 'Python', pythonShape),
      javascript: parserOf(javascript, 'JavaScript', javascriptShape),
      typescript: parserOf(typescript, 'TypeScript', javascriptShape),
      tsx: parserOf(tsx, 'TSX', javascriptShape),
    };
  })();
  loading.catch(() => {
    loading = null; // a failed load is tried again on the next scan
  });
  return loading;
}
