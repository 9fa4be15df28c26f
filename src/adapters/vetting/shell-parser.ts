// The bash parser the hooks connector reads shell with: tree-sitter's bash grammar (the .wasm the
// tree-sitter-bash package ships) run by web-tree-sitter, loaded with the other grammars
// (syntax-parsers.ts). The domain receives a synchronous parse function that returns a plain syntax
// tree (ShellNode), and walks that.
import type { ShellParser } from '../../domain/vetting/connectors/hooks-syntax.ts';
import { loadSyntaxParsers } from './syntax-parsers.ts';

/** Loads the grammars once per process; the parser it gives is synchronous. */
export const loadShellParser = (): Promise<ShellParser> => loadSyntaxParsers().then((parsers) => parsers.bash);
