// The bash parser the hooks connector reads shell with: tree-sitter's bash grammar (the .wasm the
// tree-sitter-bash package ships) run by web-tree-sitter. Loading the WebAssembly is I/O, so it lives
// here; the domain receives a synchronous parse function that returns a plain syntax tree (ShellNode),
// and walks that.
import { createRequire } from 'node:module';
import { Language, Parser, type TreeCursor } from 'web-tree-sitter';
import type { ShellNode, ShellParser } from '../../domain/vetting/connectors/hooks-syntax.ts';

const require = createRequire(import.meta.url);

/** Nodes the connector never reads: comments run nothing, and a string's text is read from the string. */
const skipped = new Set(['comment', 'string_content', 'heredoc_content']);
const leaf: readonly ShellNode[] = [];

/** The named nodes under the cursor's node, as plain data (the cursor is left where it started). */
function plain(cursor: TreeCursor, type: string, lineOf: (offset: number) => number): ShellNode {
  const field = cursor.currentFieldName;
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  let children: ShellNode[] | null = null;
  if (cursor.gotoFirstChild()) {
    do {
      if (!cursor.nodeIsNamed && !cursor.nodeIsMissing) continue;
      const childType = cursor.nodeType;
      if (!skipped.has(childType)) (children ??= []).push(plain(cursor, childType, lineOf));
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return { type, field, start, end, line: lineOf(start), children: children ?? leaf };
}

/** Line (from 1) of an offset, from the offsets where lines start: cheaper than asking the tree per node. */
function lines(source: string): (offset: number) => number {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

let loading: Promise<ShellParser> | null = null;

/** Loads the grammar once per process; the parser it gives is synchronous. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= (async () => {
    await Parser.init();
    const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new Parser();
    parser.setLanguage(bash);
    return (source: string): ShellNode => {
      const tree = parser.parse(source);
      if (tree === null) throw new Error('the bash parser returned no tree');
      try {
        const cursor = tree.walk();
        return plain(cursor, cursor.nodeType, lines(source));
      } finally {
        tree.delete();
      }
    };
  })();
  loading.catch(() => {
    loading = null; // a failed load is tried again on the next scan
  });
  return loading;
}
