// The hooks part of the labelled vetting corpus (its target: precision ≥ 90 % on HIGH/CRITICAL, recall
// 100 % on the attack set); here every case must score exactly: no false positive, no miss.
import t from 'tap';
import { explain, loadCorpus, scoreCorpus } from '../../../../support/vetting-corpus.ts';

const cases = loadCorpus().filter((c) => c.connector === 'hooks');
const { scores, connectors } = await scoreCorpus(cases);

t.test('the hooks corpus is large enough and balanced', async (t) => {
  t.ok(cases.length >= 22, `${cases.length} cases`);
  const attack = cases.filter((c) => c.label === 'attack').length;
  t.ok(attack >= 9 && cases.length - attack >= 9, `${attack} attack, ${cases.length - attack} benign`);
});

t.test('every hooks case scores exactly', async (t) => {
  for (const score of scores) t.strictSame(explain(score), [], `${score.case.id}`);
  t.equal(connectors[0]!.precision, 1);
  t.equal(connectors[0]!.recall, 1);
});
