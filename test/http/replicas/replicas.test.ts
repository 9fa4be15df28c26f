import t from 'tap';
import { replicaScenarios } from './replica-scenarios.ts';

// Two `gateway serve` processes on one PostgreSQL, the git store on one directory mounted at every replica's
// <data-dir>/git.
t.setTimeout(240_000);
replicaScenarios('shared directory');
