import t from 'tap';
import { formatDuration, parseDuration } from '../../../../src/adapters/config/duration.ts';
import { ConfigError } from '../../../../src/adapters/config/load.ts';

const positiveOnly = { allowNegative: false } as const;

t.test('accepts an integer with one unit, in milliseconds', async (t) => {
  const cases: Array<[string, number]> = [
    ['250ms', 250],
    ['0ms', 0],
    ['5s', 5_000],
    ['0s', 0],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['90d', 7_776_000_000],
    ['007s', 7_000],
  ];
  for (const [text, ms] of cases) t.equal(parseDuration(text, positiveOnly), ms, text);
});

t.test('accepts a bare 0', async (t) => {
  t.equal(parseDuration('0', positiveOnly), 0);
  t.equal(parseDuration('0', { allowNegative: true }), 0);
});

t.test('negative only with allowNegative', async (t) => {
  t.equal(parseDuration('-1d', { allowNegative: true }), -86_400_000);
  t.equal(parseDuration('-250ms', { allowNegative: true }), -250);
  t.ok(Object.is(parseDuration('-0s', { allowNegative: true }), 0), '-0s is zero, not -0');
  const error = t.throws(() =>
    parseDuration('-1d', { allowNegative: false, key: 'gateway.webhooks.timeout' }),
  ) as unknown;
  t.type(error, ConfigError);
  t.match((error as Error).message, /^gateway\.webhooks\.timeout: '-1d' is negative/);
});

t.test('refuses everything else with a ConfigError', async (t) => {
  const bad = [
    '5 seconds',
    '5',
    '-5',
    '',
    ' 5s',
    '5s ',
    '1.5s',
    '5S',
    '5sec',
    '1h30m',
    's',
    '+5s',
    '--1d',
    '-0',
    '5w',
    '0x10s',
    '1e3ms',
    '٣s',
  ];
  for (const text of bad) {
    t.throws(() => parseDuration(text, { allowNegative: true }), ConfigError, JSON.stringify(text));
  }
});

t.test('the message names the key and shows the accepted forms', async (t) => {
  try {
    parseDuration('5 seconds', { allowNegative: false, key: 'gateway.webhooks.poll-interval' });
    t.fail('should have thrown');
  } catch (error) {
    t.type(error, ConfigError);
    t.equal(
      (error as Error).message,
      "gateway.webhooks.poll-interval: '5 seconds' is not a duration (use forms like 250ms, 5s, 1h, 90d)",
    );
    t.equal((error as ConfigError).key, 'gateway.webhooks.poll-interval');
  }
});

t.test('a secret duration text is not shown', async (t) => {
  const error = t.throws(() => parseDuration('hunter2', { allowNegative: false, key: 'k', secret: true })) as unknown;
  t.notMatch((error as Error).message, /hunter2/);
  t.match((error as Error).message, /^k: the value is not a duration/);
});

t.test('a duration too large for milliseconds is refused', async (t) => {
  t.throws(() => parseDuration('99999999999999999d', positiveOnly), ConfigError);
  t.equal(parseDuration('100000d', positiveOnly), 8_640_000_000_000);
});

t.test('formatDuration uses the largest exact unit and round-trips', async (t) => {
  t.equal(formatDuration(0), '0s');
  t.equal(formatDuration(250), '250ms');
  t.equal(formatDuration(1_500), '1500ms');
  t.equal(formatDuration(5_000), '5s');
  t.equal(formatDuration(90_000), '90s');
  t.equal(formatDuration(3_600_000), '1h');
  t.equal(formatDuration(7_776_000_000), '90d');
  t.equal(formatDuration(-86_400_000), '-1d');
  for (const ms of [1, 999, 60_000, 129_600_000, -3_000]) {
    t.equal(parseDuration(formatDuration(ms), { allowNegative: true }), ms, `round trip ${ms}`);
  }
  t.throws(() => formatDuration(1.5), RangeError);
});
