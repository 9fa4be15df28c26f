// The trial loop of the fault suite, shared by every fault: the gateway killed, or
// the embedded database killed under a running gateway.
import type { Test } from 'tap';
import { marketplaceFiles, serveUpstream } from '../support/upstream.ts';
import { chooseAct, describeTrial, newRunState, refreshWorld, type ActContext } from './support-acts.ts';
import { deliveryInvariants } from './support-delivery.ts';
import { checkInvariants } from './support-invariants.ts';
import { deliveryEnv, startDeliveryWatch, type DeliveryWatch } from './support-receivers.ts';
import { faultHarness, random, sessionClient, type Fault, type FaultHarness, type GatewayProcess } from './support.ts';

export type TrialSettings = Readonly<{ trials: number; seed: number; timeoutMs: number }>;

/** `npm test` runs a few trials; `npm run faults` (FAULTS_LONG=1) runs FAULT_TRIALS (default 200). */
export function trialSettings(): TrialSettings {
  const long = process.env.FAULTS_LONG === '1';
  const trials = Number(process.env.FAULT_TRIALS ?? (long ? 200 : 4));
  const seed = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
  // A trial takes a restart (about 5 s on two cores) and a few seconds of acts and checks.
  return { trials, seed, timeoutMs: Math.max(300_000, trials * 60_000) };
}

/**
 * Drives acts until the fault strikes: after a random delay, or while a chosen act awaits its answer; in
 * some trials also as soon as a webhook or a sink batch is being sent (its receiver holds the answer until
 * the fault has struck), whichever comes first.
 */
async function driveUntilStruck(
  ctx: ActContext,
  fault: Fault,
  gateway: GatewayProcess,
  struck: { at: boolean },
  delivery: DeliveryWatch,
) {
  const { rng, state } = ctx;
  let striking: Promise<void> | null = null;
  const strike = () => {
    struck.at = true;
    if (striking === null) {
      delivery.noteStrike();
      delivery.disarm(); // a later send is no longer struck mid-send
    }
    striking ??= fault.inject(gateway);
    return striking;
  };
  const during = rng.next() < 0.6 ? rng.int(6) : -1;
  const timer = during < 0 ? setTimeout(strike, rng.int(4000)) : null;
  const timers = timer ? [timer] : [];
  if (rng.next() < 0.35) delivery.arm(strike);
  for (let index = 0; !struck.at; index++) {
    const act = chooseAct(ctx);
    const typical = state.typicalMs.get(act.kind) ?? 500;
    if (index === during) timers.push(setTimeout(strike, rng.next() * typical * 1.2));
    const started = Date.now();
    await act.run();
    if (!struck.at) state.typicalMs.set(act.kind, (typical + (Date.now() - started)) / 2);
  }
  for (const pending of timers) clearTimeout(pending);
  delivery.disarm();
  await striking;
}

/**
 * The trials of one fault: a gateway on a fresh data directory with three upstreams; each trial drives
 * acts until the fault strikes, recovers, and checks every invariant; the summary line closes the run.
 */
export async function faultTrials(t: Test, makeFault: (harness: FaultHarness) => Fault, settings: TrialSettings) {
  const { trials, seed } = settings;
  const harness = faultHarness(t, deliveryEnv);
  const fault = makeFault(harness);
  const upstreams = await Promise.all(
    [0, 1, 2].map((i) => serveUpstream(t, marketplaceFiles(`up${i}`, ['alpha', 'beta']), `up${i}`)),
  );
  let gateway = await harness.start();
  const api = sessionClient(() => gateway.url);
  const state = newRunState();
  const struck = { at: false };
  const ctx: ActContext = {
    t,
    api,
    base: () => gateway.url,
    rng: random(seed),
    upstreams,
    state,
    killed: () => struck.at,
  };
  const issued = await api.post('/api/v1/tokens', { name: 'fault-checker' });
  t.equal(issued.status, 201, 'the checker token is issued');
  const checker = { id: issued.body.id as number, name: 'fault-checker', secret: issued.body.token as string };
  state.history.push({
    trial: 0,
    kind: 'token',
    target: 'fault-checker',
    outcome: 'acked',
    status: 201,
    claims: [{ key: 'token|name=fault-checker', min: 1, max: 1 }],
  });
  // A subscriber for every event kind and an audit sink, so the faults strike sends as well.
  const delivery = await startDeliveryWatch(t, api, seed);

  for (let trial = 1; trial <= trials; trial++) {
    state.trial = trial;
    state.captured = [];
    state.removedNames = [];
    struck.at = false;
    await refreshWorld(ctx);
    await driveUntilStruck(ctx, fault, gateway, struck, delivery);
    gateway = await fault.recover(gateway);
    const found = [...(fault.problems?.() ?? []), ...(await checkInvariants(ctx, checker))];
    for (const violation of found) {
      state.violations.push(`trial ${trial}: ${violation}`);
    }
    const trialViolations = state.violations.filter((v) => v.startsWith(`trial ${trial}:`));
    if (trialViolations.length > 0 || process.env.FAULT_VERBOSE) {
      t.comment(`trial ${trial} (seed ${seed}) acts: ${describeTrial(state, trial)}`);
      for (const violation of trialViolations) t.comment(violation);
    }
  }

  // After the last trial's recovery: what was owed to the subscriber and the sink has arrived.
  const delivered = await deliveryInvariants(api, delivery, fault.seversSends === true);
  for (const violation of delivered.violations) state.violations.push(`after the last trial: ${violation}`);
  for (const violation of delivered.violations) t.comment(`after the last trial: ${violation}`);

  const acts = state.history.filter((act) => act.kind !== 'roles-read');
  const summary =
    `fault suite: ${trials} trials, ${state.violations.length} violations ` +
    `(seed ${seed}; ${acts.length} acts: ${acts.filter((a) => a.outcome === 'acked').length} acknowledged, ` +
    `${acts.filter((a) => a.outcome === 'unknown').length} unanswered, ${acts.filter((a) => a.outcome === 'refused').length} refused)` +
    (fault.report ? `; ${fault.report()}` : '') +
    `; ${delivered.report}`;
  process.stderr.write(`${summary}\n`);
  for (const note of new Set(state.notes)) t.comment(note);
  t.comment(summary);
  t.strictSame(state.violations, [], 'no invariant is violated');
}
