import t from 'tap';
import { faultTrials, trialSettings } from './support-trials.ts';
import { killDatabase } from './support.ts';

// Kill -9 of the embedded PostgreSQL's postmaster at random points of the same
// acts as the gateway kill, the gateway left running; it must restart its database and answer health
// UP as the same process, and then the same invariants hold (support-invariants.ts; after the last trial,
// the delivery invariants of support-delivery.ts).
const settings = trialSettings();
t.setTimeout(settings.timeoutMs);

t.test(`${settings.trials} trials of kill -9 of the database, recovery, invariants (seed ${settings.seed})`, (t) =>
  faultTrials(t, killDatabase, settings),
);
