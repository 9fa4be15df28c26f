import type { CodeTrace } from './code-trace.ts';
import { importGraph, reachable } from './import-graph.ts';

/**
 * How a trace of the code that ran is drawn in docs/architecture.md: the files a reader opens to follow one
 * request, by layer, apart from the asynchronous part it starts (or waits for) and from the machinery every
 * request or command passes whatever it is (the server's hooks, authentication, the event store, the runner,
 * the PostgreSQL pool, the shared kernels), which is named once per trace and not counted.
 */
export type TraceSpec = Readonly<{
  title: string;
  /** One paragraph: the request and what it sets up. */
  what: string;
  /** Where the request enters: the files its path is followed from (by value imports). */
  roots: RegExp;
  /** Where its asynchronous part enters (projections, reactors, publication): followed the same way. */
  asynchronousRoots: RegExp;
  /** What that part is called in the text. */
  asynchronousName: string;
}>;

const machinery = [
  /^src\/http\/(server|request-log|request-metrics|problems|http-deps)\.ts$/,
  /^src\/http\/limits\//,
  /^src\/http\/auth\/(authenticate|authorize|caller|cookies)\.ts$/,
  /^src\/http\/portal\/security-headers\.ts$/,
  /^src\/adapters\/(postgres|eventstore|config|system)\//,
  /^src\/application\/kernel\//,
  /^src\/domain\/kernel\//,
  /^src\/domain\/events\.ts$/,
  /^src\/projections\/runner\//,
  /^src\/projections\/registry\.ts$/,
  /^src\/gateway[a-z-]*\.ts$/,
];

const layers = ['http', 'application', 'domain', 'projections', 'adapters'] as const;
const layerOf = (file: string): string => file.split('/')[1] ?? '';
const byLayer = (a: string, b: string): number =>
  layers.indexOf(layerOf(a) as never) - layers.indexOf(layerOf(b) as never) || a.localeCompare(b);

export type Drawn = Readonly<{
  request: string[];
  asynchronous: string[];
  machinery: string[];
  /** What else ran in the window: the gateway's other work (a duty's pass, another reactor), not this trace's. */
  elsewhere: string[];
  requestFunctions: number;
  asynchronousFunctions: number;
}>;

const isMachinery = (file: string) => machinery.some((pattern) => pattern.test(file));
// The hubs a path is not followed through: each reaches everything (every projection, every event, every port).
const hub =
  /^src\/(projections\/runner\/|projections\/registry\.ts$|gateway[a-z-]*\.ts$|domain\/events\.ts$|application\/kernel\/ports\.ts$)/;
const graph = importGraph();
const from = (roots: RegExp) =>
  reachable(
    graph,
    [...graph.keys()].filter((file) => roots.test(file)),
    (file) => hub.test(file),
  );

/**
 * Splits a trace: a file that ran is on the request path when the request's roots reach it by value imports
 * (not walking on through the hubs), in the asynchronous part when only that part's roots reach it. Adapters a
 * use case is handed as ports are named among the roots, because no import leads to them.
 */
export function split(trace: CodeTrace, spec: TraceSpec): Drawn {
  const files = [...trace.keys()].sort(byLayer);
  const requestReach = from(spec.roots);
  const asynchronousReach = from(spec.asynchronousRoots);
  const request = files.filter((file) => !isMachinery(file) && requestReach.has(file));
  const asynchronous = files.filter(
    (file) => !isMachinery(file) && !requestReach.has(file) && asynchronousReach.has(file),
  );
  const functions = (list: string[]) => list.reduce((sum, file) => sum + trace.get(file)!.size, 0);
  return {
    request,
    asynchronous,
    machinery: files.filter(isMachinery),
    elsewhere: files.filter((file) => !isMachinery(file) && !request.includes(file) && !asynchronous.includes(file)),
    requestFunctions: functions(request),
    asynchronousFunctions: functions(asynchronous),
  };
}

const table = (files: string[], trace: CodeTrace): string[] => [
  '| Layer | File | Functions that ran |',
  '|---|---|---|',
  ...files.map((file) => {
    const ran = [...trace.get(file)!].sort();
    return `| ${layerOf(file)} | \`${file}\` | ${ran.length === 0 ? '(callbacks only)' : ran.map((n) => `\`${n}\``).join(', ')} |`;
  }),
];

const names = (files: string[]) => files.map((file) => `\`${file.replace(/^src\//, '')}\``).join(', ');

/** The Markdown of one trace. */
export function render(trace: CodeTrace, spec: TraceSpec): string {
  const drawn = split(trace, spec);
  return [
    `### ${spec.title}`,
    '',
    spec.what,
    '',
    `**Request path: ${drawn.request.length} files, ${drawn.requestFunctions} functions.**`,
    '',
    ...table(drawn.request, trace),
    '',
    `**${spec.asynchronousName}: ${drawn.asynchronous.length} files, ${drawn.asynchronousFunctions} functions.**`,
    '',
    ...(drawn.asynchronous.length === 0 ? ['(none)'] : table(drawn.asynchronous, trace)),
    '',
    ...(drawn.elsewhere.length === 0
      ? []
      : [`Also ran in the window, the gateway's other work: ${names(drawn.elsewhere)}.`, '']),
    `Shared machinery passed (${drawn.machinery.length} files, not counted): ${names(drawn.machinery)}.`,
    '',
  ].join('\n');
}

export const begin =
  '<!-- traces:begin (generated by `npm run trace`; test/http/docs/traces.test.ts fails when it drifts) -->';
export const end = '<!-- traces:end -->';

/** `document` with the text between the markers replaced by `block`. */
export function spliced(document: string, block: string): string {
  const from = document.indexOf(begin);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error('docs/architecture.md has no traces block');
  return `${document.slice(0, from + begin.length)}\n\n${block.trim()}\n\n${document.slice(to)}`;
}
