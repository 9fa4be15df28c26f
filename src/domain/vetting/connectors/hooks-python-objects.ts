// The objects Python library calls return, and what their methods do: an open file written, a
// urllib Request given headers, a socket connected and sent to, an http.client connection's request, an
// SMTP message, an archive given a credential directory, a process given fetched code on stdin.
import { readFile, send, type Part } from './hooks-effects.ts';
import { assign, empty, type Obj, type Value } from './hooks-flow.ts';
import { runProgram, writeFile } from './hooks-programs.ts';
import type { PyCall } from './hooks-python-api.ts';
import { arg, hostOfAddress } from './hooks-python-context.ts';

export const isLibraryObject = (obj: Obj): boolean =>
  ['file', 'request', 'socket', 'http-connection', 'smtp', 'archive', 'process'].includes(obj.kind);

/** Methods of the objects library calls return: what a file, request, socket or process does. */
export function objectMethod(c: PyCall, obj: Obj, method: string): Value | undefined {
  const field = (key: string) => obj.fields.get(key);
  const host = field('@host') ?? null;
  const via = `${obj.kind === 'http-connection' ? 'http.client' : obj.kind}.${method}`;
  switch (`${obj.kind}.${method}`) {
    case 'file.write':
    case 'file.writelines':
      writeFile(c.flow, c.node, field('@path') ?? empty, arg(c, 0) ?? empty);
      return empty;
    case 'request.add_header':
      assign(c.flow, obj.fields, '@headers', arg(c, 1) ?? empty);
      return empty;
    case 'socket.connect':
      assign(c.flow, obj.fields, '@host', hostOfAddress(arg(c, 0)) ?? empty);
      return empty;
    case 'socket.send':
    case 'socket.sendall':
      return send(c.flow, c.node, { via, target: host, parts: [{ value: arg(c, 0) ?? empty }], posts: true });
    case 'socket.sendto':
      return send(c.flow, c.node, {
        via,
        target: hostOfAddress(arg(c, 1)) ?? null,
        parts: [{ value: arg(c, 0) ?? empty }],
        posts: true,
      });
    case 'socket.recv':
    case 'socket.makefile':
      return send(c.flow, c.node, { via, target: host, parts: [], posts: false });
    case 'http-connection.request': {
      const parts: Part[] = [arg(c, 2, 'body'), arg(c, 3, 'headers')]
        .filter((v): v is Value => v !== undefined)
        .map((value) => ({ value }));
      const verb = (arg(c, 0, 'method')?.str ?? 'GET').toUpperCase();
      return send(c.flow, c.node, {
        via,
        target: host,
        parts: [...parts, { value: arg(c, 1, 'url') ?? empty }],
        posts: verb !== 'GET',
      });
    }
    case 'http-connection.send':
      return send(c.flow, c.node, { via, target: host, parts: [{ value: arg(c, 0) ?? empty }], posts: true });
    case 'smtp.sendmail':
    case 'smtp.send_message':
      return send(c.flow, c.node, { via, target: host, parts: c.args.map((value) => ({ value })), posts: true });
    case 'archive.add':
    case 'archive.write':
      writeFile(c.flow, c.node, field('@path') ?? empty, readFile(c.flow, c.node, arg(c, 0) ?? empty, via));
      return empty;
    case 'archive.writestr':
      writeFile(c.flow, c.node, field('@path') ?? empty, arg(c, 1) ?? empty);
      return empty;
    case 'process.communicate': {
      const stdin = arg(c, 0, 'input');
      const argv = field('@argv') ?? empty;
      if (stdin !== undefined) {
        const items = (argv.objs ?? [])[0]?.items ?? [argv];
        runProgram(c.flow, c.node, { via: 'subprocess.Popen.communicate', argv: items, stdin }, c.nested);
      }
      return field('@output') ?? empty;
    }
    default:
      return undefined;
  }
}
