import { Type } from 'typebox';
import { ingestPhases } from '../../domain/marketplace/ingest-progress.ts';
import { ingestTriggers } from '../../domain/snapshot/snapshot.events.ts';
import { literalUnion, NullableTimestamp, Timestamp } from './common.schema.ts';

const Tally = (description: string) =>
  Type.Union([Type.Object({ done: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }) }), Type.Null()], {
    description,
  });

/** One ingest running or waiting in this gateway process, as its progress reads now. */
export const IngestView = Type.Object({
  marketplace: Type.String(),
  state: literalUnion(['running', 'queued'] as const),
  position: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: "Place in the gateway's queue (1: the next to start); null once it runs.",
  }),
  phase: literalUnion(ingestPhases),
  trigger: literalUnion(ingestTriggers),
  requestedBy: Type.String({ description: 'who started it: a person, a machine, or `webhook`/`scheduler`' }),
  queuedAt: Timestamp,
  startedAt: NullableTimestamp,
  externals: Tally('resolve: external plugin sources with an outcome, of those the snapshot keeps; null without any'),
  files: Tally('tree: files of the captured tree read, of all its files; null before the tree is read'),
  connectors: Type.Union(
    [
      Type.Object({
        done: Type.Integer({ minimum: 0 }),
        total: Type.Integer({ minimum: 0 }),
        current: Type.Union([Type.String(), Type.Null()], { description: 'the connector running now' }),
      }),
      Type.Null(),
    ],
    {
      description:
        'vetting: connectors finished of those enabled (each reads the whole tree, `files.total` files); ' +
        'null before the vetting starts',
    },
  ),
  snapshotId: Type.Union([Type.Integer(), Type.Null()], { description: 'the snapshot, once the capture is recorded' }),
});

export const IngestProgressAnswer = Type.Intersect([
  IngestView,
  Type.Object({
    queued: Type.Array(IngestView, { description: "the marketplace's ingests waiting after this one" }),
  }),
]);

export const IngestsAnswer = Type.Object({
  concurrency: Type.Integer({ description: 'gateway.ingest.concurrency: ingests that run at once' }),
  running: Type.Array(IngestView),
  queued: Type.Array(IngestView, { description: 'in queue order' }),
});
