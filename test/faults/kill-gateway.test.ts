import t from 'tap';
import { faultTrials, trialSettings } from './support-trials.ts';
import { killGateway } from './support.ts';

// Kill -9 of the gateway at random points of registration, ingest, approval,
// rejection, removal (revocation), token issue and clones, and of webhook and audit-sink sends;
// restart on the same data directory; then the invariants (support-invariants.ts), and after the last
// trial the delivery invariants (support-delivery.ts). kill-database.test.ts kills the database instead.
const settings = trialSettings();
t.setTimeout(settings.timeoutMs);

t.test(`${settings.trials} trials of kill -9 of the gateway, restart, invariants (seed ${settings.seed})`, (t) =>
  faultTrials(t, killGateway, settings),
);
