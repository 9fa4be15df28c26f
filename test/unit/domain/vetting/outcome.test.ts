import t from 'tap';
import {
  classify,
  evaluate,
  recordedOutcomeOf,
  waiverActive,
  waiverCovers,
  type WaiverTerms,
} from '../../../../src/domain/vetting/outcome.ts';
import { after, at, finding, sha, verdict } from '../../../support/builders.ts';

const aws = finding({ id: 'secrets-aws', severity: 'HIGH', location: 'plugins/a/config.env:3' });
const key = finding({
  id: 'secrets-privatekey',
  severity: 'CRITICAL',
  location: 'plugins/c/skills/ssh/SKILL.md:8',
  message: 'private key',
});
const failing = verdict({ connector: 'secrets', state: 'FAIL', findings: [aws, key] });
const passing = verdict({ verdictId: 2, connector: 'manifest', position: 1 });

const waiver = (overrides: Partial<WaiverTerms> = {}): WaiverTerms => ({
  waiverId: 21,
  ruleId: 'secrets-aws',
  scope: 'SNAPSHOT',
  scopeValue: sha(),
  approvedBy: 'carol',
  expiresAt: after(86_400_000),
  revokedAt: null,
  ...overrides,
});

t.test('spec, Vetting report: "A snapshot never run against reports outcome BLOCKED and run null"', async (t) => {
  t.strictSame(evaluate(null, sha(), [waiver()], at), {
    outcome: 'BLOCKED',
    recordedOutcome: 'BLOCKED',
    suppressed: [],
    uncovered: [],
    unanswered: [],
  });
  t.equal(
    classify(evaluate(null, sha(), [], at)),
    'INCONCLUSIVE',
    'nothing uncovered: a missing run is not a violation',
  );
});

t.test('every connector PASS or WARN: CLEAR (only FAIL, ERROR and PENDING block)', async (t) => {
  const warned = verdict({
    connector: 'license',
    state: 'WARN',
    findings: [finding({ id: 'license-unknown', severity: 'LOW', location: 'LICENSE:1' })],
  });
  for (const verdicts of [[passing], [passing, warned], []]) {
    const evaluation = evaluate(verdicts, sha(), [], at);
    t.strictSame(
      evaluation,
      { outcome: 'CLEAR', recordedOutcome: 'CLEAR', suppressed: [], uncovered: [], unanswered: [] },
      verdicts.map((v) => v.state).join(',') || 'no connector',
    );
    t.equal(classify(evaluation), 'CLEAR');
  }
  t.equal(recordedOutcomeOf([passing, warned]), 'CLEAR');
});

t.test(
  'a FAIL with blocking findings and no waiver: BLOCKED, every HIGH and CRITICAL finding uncovered (decision 65)',
  async (t) => {
    const low = finding({ id: 'secrets-maybe', severity: 'MEDIUM', location: 'b.txt:1' });
    const evaluation = evaluate([passing, { ...failing, findings: [aws, low, key] }], sha(), [], at);
    t.strictSame(
      evaluation,
      {
        outcome: 'BLOCKED',
        recordedOutcome: 'BLOCKED',
        suppressed: [],
        unanswered: [],
        uncovered: [
          {
            connector: 'secrets',
            ruleId: 'secrets-aws',
            location: 'plugins/a/config.env:3',
            severity: 'HIGH',
            message: 'AWS Secret Access Key',
          },
          {
            connector: 'secrets',
            ruleId: 'secrets-privatekey',
            location: 'plugins/c/skills/ssh/SKILL.md:8',
            severity: 'CRITICAL',
            message: 'private key',
          },
        ],
      },
      'the MEDIUM finding is not listed: it does not block',
    );
    t.equal(classify(evaluation), 'VIOLATION');
  },
);

t.test(
  "a FAIL without a finding to waive (an external scanner's bare verdict) is uncovered as <connector>/fail",
  async (t) => {
    const bare = verdict({
      connector: 'http',
      state: 'FAIL',
      detail: 'scanner says no',
      findings: [finding({ severity: 'LOW' })],
    });
    t.match(
      evaluate([bare], sha(), [waiver({ ruleId: 'http/fail' })], at),
      {
        outcome: 'BLOCKED',
        uncovered: [
          { connector: 'http', ruleId: 'http/fail', location: '', severity: 'HIGH', message: 'scanner says no' },
        ],
        suppressed: [],
      },
      'and no waiver can cover it',
    );
    t.match(evaluate([{ ...bare, detail: null, findings: [] }], sha(), [], at), {
      uncovered: [{ ruleId: 'http/fail', message: 'http failed' }],
    });
  },
);

t.test(
  'spec, Re-vet result: "INCONCLUSIVE means the chain blocks only because a connector errored, timed out or has not answered"',
  async (t) => {
    for (const state of ['ERROR', 'PENDING'] as const) {
      const external = verdict({
        verdictId: 3,
        connector: 'http',
        position: 6,
        state,
        reportUrl: 'https://scanner.test/r/1',
      });
      const evaluation = evaluate([passing, external], sha(), [], at);
      t.strictSame(
        evaluation,
        { outcome: 'BLOCKED', recordedOutcome: 'BLOCKED', suppressed: [], uncovered: [], unanswered: ['http'] },
        state,
      );
      t.equal(classify(evaluation), 'INCONCLUSIVE', `${state} alone is INCONCLUSIVE`);
      const both = evaluate([failing, external], sha(), [], at);
      t.strictSame(both.unanswered, ['http']);
      t.equal(classify(both), 'VIOLATION', `${state} beside an uncovered finding is a VIOLATION`);
      t.equal(
        classify(
          evaluate([failing, external], sha(), [waiver(), waiver({ waiverId: 22, ruleId: 'secrets-privatekey' })], at),
        ),
        'INCONCLUSIVE',
        `${state} beside waived findings: INCONCLUSIVE`,
      );
    }
  },
);

t.test(
  'spec: "recordedOutcome … Never rewritten by a waiver"; waived findings give CLEAR_WITH_WAIVERS and are listed as suppressed',
  async (t) => {
    const waivers = [
      waiver(),
      waiver({
        waiverId: 22,
        ruleId: 'secrets-privatekey',
        scope: 'PATH',
        scopeValue: 'plugins/c',
        approvedBy: 'dave',
      }),
    ];
    const evaluation = evaluate([passing, failing], sha(), waivers, at);
    t.strictSame(evaluation, {
      outcome: 'CLEAR_WITH_WAIVERS',
      recordedOutcome: 'BLOCKED',
      uncovered: [],
      unanswered: [],
      suppressed: [
        {
          connector: 'secrets',
          ruleId: 'secrets-aws',
          location: 'plugins/a/config.env:3',
          waiverId: 21,
          approvedBy: 'carol',
          expiresAt: after(86_400_000),
        },
        {
          connector: 'secrets',
          ruleId: 'secrets-privatekey',
          location: 'plugins/c/skills/ssh/SKILL.md:8',
          waiverId: 22,
          approvedBy: 'dave',
          expiresAt: after(86_400_000),
        },
      ],
    });
    t.equal(classify(evaluation), 'CLEAR', 'CLEAR_WITH_WAIVERS classifies as CLEAR');
    const partly = evaluate([failing], sha(), [waiver()], at);
    t.match(
      partly,
      { outcome: 'BLOCKED', suppressed: [{ ruleId: 'secrets-aws' }], uncovered: [{ ruleId: 'secrets-privatekey' }] },
      'one waived, one not: BLOCKED',
    );
    t.equal(partly.suppressed.length + partly.uncovered.length, 2);
  },
);

t.test('a waiver covers only its own rule id', async (t) => {
  t.notOk(waiverCovers(waiver({ ruleId: 'secrets-github' }), aws, sha()));
  t.notOk(waiverCovers(waiver({ ruleId: 'secrets' }), aws, sha()), 'not a prefix of it');
  t.ok(waiverCovers(waiver(), aws, sha()));
});

t.test("spec, Waiver request: SNAPSHOT scope is the snapshot's SHA; it covers that commit and no other", async (t) => {
  t.ok(waiverCovers(waiver({ scopeValue: sha('a') }), aws, sha('a')));
  t.notOk(waiverCovers(waiver({ scopeValue: sha('a') }), aws, sha('b')), 'another commit of the same marketplace');
  t.match(evaluate([failing], sha('b'), [waiver({ scopeValue: sha('a') })], at), {
    outcome: 'BLOCKED',
    suppressed: [],
  });
});

t.test('decision 72: a PATH waiver covers the path and everything under it, whatever the commit', async (t) => {
  const located = (location: string) => finding({ location });
  const path = (scopeValue: string) => waiver({ scope: 'PATH', scopeValue });
  t.ok(
    waiverCovers(path('plugins/a/config.env'), located('plugins/a/config.env:3'), sha('z')),
    'the file itself, on any commit',
  );
  t.ok(
    waiverCovers(path('plugins/a'), located('plugins/a/config.env:3'), sha()),
    'a directory covers what is under it',
  );
  t.ok(waiverCovers(path('plugins/a/'), located('plugins/a/deep/x.env:1'), sha()), 'a trailing slash changes nothing');
  t.ok(waiverCovers(path('plugins'), located('plugins/a/deep/x.env:1'), sha()), 'at any depth');
  t.notOk(
    waiverCovers(path('plugins/a'), located('plugins/ab/config.env:3'), sha()),
    'a sibling sharing the prefix is not under it',
  );
  t.notOk(waiverCovers(path('plugins/a/config.env'), located('plugins/a/config.env.bak:1'), sha()));
  t.notOk(
    waiverCovers(path('plugins/a/config.env'), located('other/plugins/a/config.env:1'), sha()),
    'paths are repository-relative, not suffixes',
  );
  t.ok(
    waiverCovers(path('plugins/a:3'), located('plugins/a:3:2'), sha()),
    "only the trailing :line is the location's line",
  );
});

t.test(
  'spec, Waiver: "active until expiresAt or revocation"; lifecycle: a lapse changes the outcome at the next read',
  async (t) => {
    const expiresAt = after(60_000);
    t.ok(waiverActive({ expiresAt, revokedAt: null }, after(59_999)), 'a millisecond before expiry');
    t.notOk(waiverActive({ expiresAt, revokedAt: null }, expiresAt), 'at the instant of expiry it no longer counts');
    t.notOk(waiverActive({ expiresAt, revokedAt: null }, after(60_001)));
    t.notOk(waiverActive({ expiresAt, revokedAt: at }, at), 'revoked');
    const terms = [waiver({ expiresAt }), waiver({ waiverId: 22, ruleId: 'secrets-privatekey', expiresAt })];
    t.equal(evaluate([failing], sha(), terms, after(59_999)).outcome, 'CLEAR_WITH_WAIVERS');
    t.match(
      evaluate([failing], sha(), terms, expiresAt),
      { outcome: 'BLOCKED', suppressed: [], uncovered: [{ ruleId: 'secrets-aws' }, { ruleId: 'secrets-privatekey' }] },
      'the waiver stops counting at expiresAt whether or not the sweep recorded the lapse (decision 72)',
    );
    t.match(
      evaluate(
        [failing],
        sha(),
        terms.map((w) => ({ ...w, revokedAt: after(-1) })),
        at,
      ),
      { outcome: 'BLOCKED', suppressed: [] },
      'a revoked waiver stops counting',
    );
  },
);

t.test('when two waivers cover one finding, the first active one is named', async (t) => {
  const first = waiver({ waiverId: 30, expiresAt: at });
  const second = waiver({ waiverId: 31, scope: 'PATH', scopeValue: 'plugins' });
  const third = waiver({ waiverId: 32 });
  t.match(
    evaluate([{ ...failing, findings: [aws] }], sha(), [first, second, third], at),
    { suppressed: [{ waiverId: 31 }] },
    'the lapsed one is skipped',
  );
});
