import t from 'tap';
import type { WaiverTerms } from '../../../../src/domain/vetting/outcome.ts';
import { revetResult, vettingRunDecider, type RecordRun } from '../../../../src/domain/vetting/vetting.decider.ts';
import type { Verdict } from '../../../../src/domain/vetting/vetting.events.ts';
import {
  after,
  at,
  command,
  earlier,
  finding,
  runRef,
  sha,
  verdict,
  vettingCompleted,
} from '../../../support/builders.ts';
import { spec } from '../../../support/decider-spec.ts';

const manifest = verdict({ verdictId: 1, connector: 'manifest', position: 0 });
const secrets = verdict({ verdictId: 2, connector: 'secrets', position: 1 });
const leak = finding({ id: 'secrets-aws', location: 'plugins/a/config.env:3' });
const secretsFail = { ...secrets, verdictId: 4, state: 'FAIL', findings: [leak] } satisfies Verdict;
const httpPending = verdict({
  verdictId: 5,
  connector: 'http',
  position: 2,
  state: 'PENDING',
  reportUrl: 'https://scanner.test/r/1',
});

type Revet = NonNullable<RecordRun['data']['revet']>;
const revet = (overrides: Partial<Revet> = {}): Revet => ({
  mode: 'ENFORCE',
  waivers: [],
  affected: [],
  approved: true,
  ...overrides,
});
const run = (verdicts: readonly Verdict[], revetting: Revet | null = null, when = at) =>
  command<RecordRun>(
    'record-vetting-run',
    {
      ...runRef,
      trigger: revetting === null ? 'ingestion' : 'revet-manual',
      mode: 'run-all',
      chain: verdicts.map((v) => v.connector),
      startedAt: earlier,
      finishedAt: when,
      verdicts,
      revet: revetting,
    },
    { principal: 'carol', at: when },
  );
const ingested = vettingCompleted({ verdicts: [manifest, secrets], chain: ['manifest', 'secrets'] });
const ref = { ...runRef, trigger: 'revet-manual' } as const;
const waiver: WaiverTerms = {
  waiverId: 21,
  ruleId: 'secrets-aws',
  scope: 'PATH',
  scopeValue: 'plugins/a',
  approvedBy: 'dave',
  expiresAt: after(60_000),
  revokedAt: null,
};
const affected = [{ principal: 'alice', fetches: 3, lastFetch: earlier }];

t.test(
  'spec, Events: the ingestion run records "one [vetting-verdict] per connector", then vetting-completed once',
  async (t) => {
    const decision = spec(vettingRunDecider)
      .given([])
      .when(run([manifest, secretsFail]));
    t.strictSame(decision, {
      outcome: 'accepted',
      events: [
        { type: 'vetting-verdict', data: { ...runRef, verdict: manifest, previousState: null } },
        { type: 'vetting-verdict', data: { ...runRef, verdict: secretsFail, previousState: null } },
        {
          type: 'vetting-completed',
          data: {
            ...runRef,
            outcome: 'BLOCKED',
            startedAt: earlier,
            finishedAt: at,
            chain: ['manifest', 'secrets'],
            mode: 'run-all',
            verdicts: [manifest, secretsFail],
          },
        },
      ],
    });
    t.match(
      spec(vettingRunDecider)
        .given([ingested])
        .when(run([manifest, secrets])),
      {
        events: [
          { data: { previousState: 'PASS' } },
          { data: { previousState: 'PASS' } },
          { type: 'vetting-completed', data: { outcome: 'CLEAR' } },
        ],
      },
      'an ingestion of a vetted snapshot records every verdict again, naming the previous state',
    );
    t.match(
      spec(vettingRunDecider)
        .given([])
        .when(run([manifest, httpPending])),
      { events: [{}, {}, { data: { outcome: 'BLOCKED' } }] },
      'the recorded outcome is BLOCKED when a connector has not answered',
    );
  },
);

t.test('spec, Events: a re-vet records a vetting-verdict "only where a verdict changed"', async (t) => {
  const unchanged = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secrets], revet()));
  t.strictSame(
    unchanged.events.map((e) => e.type),
    ['vetting-completed', 'revet-clear'],
  );
  const changed = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secretsFail], revet({ approved: false })));
  t.match(changed.events[0], {
    type: 'vetting-verdict',
    data: { ...ref, verdict: { connector: 'secrets', state: 'FAIL' }, previousState: 'PASS' },
  });
  t.equal(changed.events.filter((e) => e.type === 'vetting-verdict').length, 1);
  const added = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secrets, httpPending], revet()));
  t.match(
    added.events[0],
    { type: 'vetting-verdict', data: { verdict: { connector: 'http' }, previousState: null } },
    'a connector new to the chain has no previous state',
  );
  const later = vettingCompleted({ verdicts: [manifest, secretsFail] });
  t.strictSame(
    spec(vettingRunDecider)
      .given([ingested, later])
      .when(run([manifest, secretsFail], revet({ approved: false })))
      .events.filter((e) => e.type === 'vetting-verdict'),
    [],
    'compared with the latest completed run, not the first',
  );
});

t.test('re-vet CLEAR: revet-clear carries the effective outcome, CLEAR or CLEAR_WITH_WAIVERS', async (t) => {
  t.match(
    spec(vettingRunDecider)
      .given([ingested])
      .when(run([manifest, secrets], revet())).events[1],
    { type: 'revet-clear', data: { ...ref, mode: 'ENFORCE', outcome: 'CLEAR', uncovered: [] } },
  );
  const waived = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secretsFail], revet({ waivers: [waiver] })));
  t.strictSame(
    waived.events.map((e) => e.type),
    ['vetting-verdict', 'vetting-completed', 'revet-clear'],
  );
  t.match(waived.events[1], { data: { outcome: 'BLOCKED' } }, 'the recorded outcome stays BLOCKED');
  t.match(waived.events[2], { data: { outcome: 'CLEAR_WITH_WAIVERS' } });
});

t.test(
  'spec, Snapshot state: a VIOLATION of an approved snapshot in ENFORCE mode revokes, naming who fetched it',
  async (t) => {
    const decision = spec(vettingRunDecider)
      .given([ingested])
      .when(run([manifest, secretsFail], revet({ affected })));
    const uncovered = [
      {
        connector: 'secrets',
        ruleId: 'secrets-aws',
        location: 'plugins/a/config.env:3',
        severity: 'HIGH',
        message: 'AWS Secret Access Key',
      },
    ];
    t.strictSame(decision.events.slice(2), [
      { type: 'revet-violation', data: { ...ref, mode: 'ENFORCE', outcome: 'BLOCKED', uncovered, revoked: true } },
      { type: 'revet-violation-affected', data: { ...ref, affected } },
    ]);
  },
);

t.test(
  'spec: "In WARN mode a violation does not revoke"; nor does a violation of a snapshot that is not approved',
  async (t) => {
    t.match(
      spec(vettingRunDecider)
        .given([ingested])
        .when(run([manifest, secretsFail], revet({ mode: 'WARN' })))
        .events.slice(2),
      [{ type: 'revet-violation', data: { mode: 'WARN', revoked: false } }, { type: 'revet-violation-affected' }],
    );
    t.match(
      spec(vettingRunDecider)
        .given([ingested])
        .when(run([manifest, secretsFail], revet({ approved: false })))
        .events.slice(2),
      [{ type: 'revet-violation', data: { mode: 'ENFORCE', revoked: false } }, { type: 'revet-violation-affected' }],
    );
  },
);

t.test('spec: "INCONCLUSIVE never revokes": a scanner that has not answered gives revet-inconclusive', async (t) => {
  const decision = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secrets, httpPending], revet({ affected })));
  t.strictSame(
    decision.events.map((e) => e.type),
    ['vetting-verdict', 'vetting-completed', 'revet-inconclusive'],
  );
  t.match(decision.events[2], { data: { ...ref, mode: 'ENFORCE', outcome: 'BLOCKED', uncovered: [] } });
  t.notOk('revoked' in decision.events[2]!.data, 'an inconclusive result has nothing to revoke');
});

t.test('the classification counts the waivers active at the decided instant', async (t) => {
  const before = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secretsFail], revet({ waivers: [waiver] }), after(59_999)));
  t.equal(before.events.at(-1)?.type, 'revet-clear');
  const expired = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secretsFail], revet({ waivers: [waiver] }), after(60_000)));
  t.match(
    expired.events.slice(-2),
    [{ type: 'revet-violation', data: { revoked: true } }, { type: 'revet-violation-affected' }],
    'at expiresAt it no longer counts',
  );
  const revoked = spec(vettingRunDecider)
    .given([ingested])
    .when(run([manifest, secretsFail], revet({ waivers: [{ ...waiver, revokedAt: earlier }] })));
  t.equal(revoked.events.at(-2)?.type, 'revet-violation', 'a revoked waiver does not count');
  const onCommit = (commit: string) =>
    spec(vettingRunDecider)
      .given([ingested])
      .when(run([manifest, secretsFail], revet({ waivers: [{ ...waiver, scope: 'SNAPSHOT', scopeValue: commit }] })))
      .events.at(-1)?.type;
  t.equal(onCommit(runRef.sha), 'revet-clear', "a SNAPSHOT waiver is matched against the run's commit");
  t.equal(onCommit(sha('b')), 'revet-violation-affected', 'and covers no other commit');
});

t.test('revetResult: only VIOLATION × ENFORCE × approved revokes', async (t) => {
  for (const classification of ['CLEAR', 'VIOLATION', 'INCONCLUSIVE'] as const) {
    for (const mode of ['WARN', 'ENFORCE'] as const) {
      for (const approved of [true, false]) {
        t.strictSame(
          revetResult(classification, mode, approved),
          { classification, revoke: classification === 'VIOLATION' && mode === 'ENFORCE' && approved },
          `${classification} ${mode} approved=${approved}`,
        );
      }
    }
  }
});
