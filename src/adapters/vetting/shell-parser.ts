// The bash parser the hooks connector reads shell with: tree-sitter's bash grammar (the .wasm the
// tree-sitter-bash package ships) run by web-tree-sitter. Loading the WebAssembly is I/O, so it lives
// here; the domain receives a synchronous parse function that returns a plain syntax tree (ShellNode),
// and walks that.
import { createRequire } from 'node:module';
import { Language, Parser, type TreeCursor } from 'web-tree-sitter';
import type { ShellNode, ShellParser } from '../../domain/vetting/connectors/hooks-syntax.ts';

const require = createRequire(import.meta.url);

/** The named nodes under the cursor's node, as plain data (the cursor is left where it started). */
function plain(cursor: TreeCursor): ShellNode {
  const children: ShellNode[] = [];
  const node: ShellNode = {
    type: cursor.nodeType,
    field: cursor.currentFieldName,
    start: cursor.startIndex,
    end: cursor.endIndex,
    line: cursor.startPosition.row + 1,
    children,
  };
  if (cursor.gotoFirstChild()) {
    do {
      if (cursor.nodeIsNamed || cursor.nodeIsMissing) children.push(plain(cursor));
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return node;
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
        return plain(tree.walk());
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
