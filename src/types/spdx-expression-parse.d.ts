// spdx-expression-parse 4 ships no typings: the parse tree as its README documents it. Throws on an
// invalid expression (unknown id, bad syntax).
declare module 'spdx-expression-parse' {
  type Expression =
    | { license: string; plus?: true; exception?: string }
    | { left: Expression; conjunction: 'and' | 'or'; right: Expression };
  function parse(source: string): Expression;
  export = parse;
}
