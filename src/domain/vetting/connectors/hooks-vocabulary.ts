// The names through which the Python and JavaScript analyses see a script act: the library modules and
// globals they model, the builtins that reach a name indirectly (`getattr`, `__import__`, `Reflect`,
// `globalThis`, dunders), the decoders. A script that holds none of them outside the import lines of
// modules it never uses, imports no file of the plugin, and builds no property name from pieces, is
// analysed to nothing: it is not parsed. Parsing is most of what reading a script costs, and many
// scripts a plugin ships (helpers, libraries, configuration) are such scripts.

const python = new Set(
  [
    // modules the analysis models, and those through which a module is reached
    'os sys subprocess socket urllib urllib2 urllib3 requests httpx aiohttp http smtplib ftplib telnetlib asyncio pty',
    'importlib builtins __builtin__ base64 codecs binascii zlib gzip bz2 lzma marshal pickle dill cloudpickle shelve',
    'shutil pathlib glob tarfile zipfile keyring dns runpy fileinput io posix nt posixpath ntpath six commands',
    'threading multiprocessing ctypes webbrowser code codeop types operator functools inspect logging',
    // builtins that run code, read files or the user, or reach a name indirectly
    'exec eval compile open __import__ getattr setattr globals locals vars input breakpoint chr bytes bytearray',
  ]
    .join(' ')
    .split(' '),
);
/** Dunders that say nothing of what a script does. */
const plainDunders = new Set([
  '__name__',
  '__main__',
  '__init__',
  '__doc__',
  '__all__',
  '__version__',
  '__author__',
  '__future__',
  '__file__',
]);

const javascript = new Set(
  [
    'require process globalThis global window self eval Function constructor fetch XMLHttpRequest WebSocket',
    'EventSource navigator Deno Bun module Reflect atob Buffer fromCharCode fromCodePoint __proto__ prototype',
    'setTimeout setInterval setImmediate Worker importScripts unescape decodeURIComponent decodeURI',
  ]
    .join(' ')
    .split(' '),
);

/** Words of a text (identifiers and dunders). */
const words = (text: string): Set<string> => new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);

/** A property name built from pieces (`x['ev' + 'al']`, `` x[`${a}`] ``): the analysis may fold it to any name. */
const builtKey = /\[\s*(?:['"`][^\]\n]*\+|[^\]\n'"`]*\+\s*['"`]|`[^`\]]*\$\{)/;
/** A member called by a name held in a variable (`x[k](…)`): the name may have been built anywhere. */
const calledByName = /\[\s*[A-Za-z_$][\w$.]*\s*\]\s*\(/;

/**
 * May a Python script act on the machine as the analysis sees it? `local` says whether an imported module
 * is a file of the plugin (a file it runs).
 */
export function pythonMayAct(text: string, local: (module: string) => boolean): boolean {
  const bound = new Set<string>();
  const rest = text.replace(
    /^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+([^\n#]*)|import[ \t]+([^\n#]*))$/gm,
    (line, dots?: string, from?: string, names?: string, modules?: string) => {
      if (dots) bound.add('*'); // a relative import is a file of the plugin
      if (modules !== undefined && /\\\s*$/.test(modules)) bound.add('*');
      for (const part of (modules ?? '').split(',')) {
        const [module = '', alias] = part.trim().split(/\s+as\s+/);
        if (module === '') continue;
        if (local(module)) bound.add('*');
        if (python.has(module.split('.')[0]!)) bound.add(alias ?? module.split('.')[0]!);
      }
      if (from !== undefined) {
        if (local(from)) bound.add('*');
        // Names on the lines that follow (`import (`, a `\` continuation) are not read here: parse.
        if (python.has(from.split('.')[0]!) && /\(\s*$|\\\s*$|\*/.test(names ?? '')) bound.add('*');
        if (python.has(from.split('.')[0]!))
          for (const part of (names ?? '').replace(/[()\\]/g, '').split(',')) {
            const [name = '', alias] = part.trim().split(/\s+as\s+/);
            if (name !== '') bound.add(alias ?? name);
          }
      }
      return line.replace(/\S/g, ' ');
    },
  );
  if (bound.has('*')) return true;
  for (const word of words(rest)) {
    if (python.has(word) || bound.has(word)) return true;
    if (word.startsWith('__') && word.endsWith('__') && !plainDunders.has(word)) return true;
  }
  return false;
}

/**
 * May a JavaScript or TypeScript script act on the machine as the analysis sees it? `sloppy` when it may run
 * outside strict mode (a CommonJS `.js` or `.cjs` without `'use strict'`): a plain function's `this` is
 * then the global object, so `this` is a way in as well.
 */
export function javascriptMayAct(text: string, sloppy = false): boolean {
  const bound = new Set<string>();
  const importLine =
    /^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom[ \t]*(['"])([^'"]+)\1|^[ \t]*import[ \t]*(['"])([^'"]+)\3/gm;
  let local = false;
  const rest = text.replace(importLine, (statement, _q, from?: string, _q2?: string, bare?: string) => {
    const specifier = from ?? bare ?? '';
    if (/^\.\.?\//.test(specifier)) local = true;
    // The names the statement binds are the module's from here on.
    for (const name of statement.replace(/\bfrom[\s\S]*$/, '').match(/[A-Za-z_$][\w$]*/g) ?? [])
      if (!/^(?:import|export|type|as|from|default)$/.test(name)) bound.add(name);
    return statement.replace(/\S/g, ' ');
  });
  if (local || builtKey.test(rest) || calledByName.test(rest)) return true;
  for (const word of words(rest))
    if (javascript.has(word) || bound.has(word) || (sloppy && word === 'this')) return true;
  return /\bimport\s*\(/.test(rest);
}

/** Does a script run outside strict mode: CommonJS JavaScript (no `import`/`export`, no `'use strict'`)? */
export const sloppyMode = (path: string, text: string): boolean =>
  !/\.(?:mjs|ts|mts|cts|tsx)$/i.test(path) && !/^\s*(?:import|export)\b|^\s*['"]use strict['"]/m.test(text);
