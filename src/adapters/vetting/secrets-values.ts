// Test files, and values made up for a test or an example (seen on real content: compiled test
// suites full of `xoxb-test-token` and `hooks.slack.com/services/T00/B00/xxx`, agent docs with
// `testuser:testpass@postgres:5432`). A value is "made up" only when the value itself says so: a marker word,
// a segment of one repeated character, a counting sequence, or too little entropy to be an issued key. The path
// alone never lowers a finding: a real-looking high-entropy key in a test file stays HIGH (real leaks happen in
// tests too). Nothing here ever quotes the value.

// Directories and file names of test suites and their fixtures (JavaScript, Python, Go, Ruby, Java conventions).
const testDirectory =
  /(?:^|\/)(?<dir>__tests__|__mocks__|__fixtures__|tests?|specs?|fixtures?|testdata|test-data|test_data)\//i;
const testFile =
  /(?:^|\/)(?<file>[^/]+\.(?:test|spec)\.[a-z0-9]+|test_[^/]+\.py|[^/]+_test\.(?:py|go|rb)|[^/]+Test\.java)$/;

/** Why a path is a test file or a fixture (`under __tests__/`, `a *.test.* file`), or null. */
export function testPathReason(path: string): string | null {
  const dir = testDirectory.exec(path)?.groups?.dir;
  if (dir !== undefined) return `under ${dir}/`;
  const file = testFile.exec(path)?.groups?.file;
  return file === undefined ? null : 'a test file by its name';
}

// Words nobody finds in an issued key: the author wrote them to say the value is made up. A word counts standing
// alone (no letter either side) in one case (`test`, `TEST`, `Test`): a random key spells one only by a rare chance.
const markerWord =
  /(?<![A-Za-z])(?:test|fake|dummy|mock|stub|sample|example|fixture|placeholder|secret|redacted|invalid|bogus|sandbox)s?(?![A-Za-z])/gi;
const oneCase = (word: string): boolean => /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(word);

/**
 * The part of a value an issuer generated: no `name: "` or `name = '` before it (secretlint's AWS match
 * starts at the key's name), no `scheme://host/`, no short issuer prefix (`xoxb-`, `ghp_`, `npm_`).
 */
const bodyOf = (value: string): string =>
  value
    .replace(/^["']?[A-Za-z_][\w.-]*["']?\s*[:=](?!\/\/)\s*["']?/, '')
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]*\/(?:services\/)?/i, '')
    .replace(/^[a-z]{2,5}[-_]/i, '');

const segments = (body: string): string[] => body.split(/[^A-Za-z0-9]+/).filter((s) => s !== '');

/** Share of the alphanumeric characters standing in ascending runs of 3 or more (`abc`, `123`, `DEF`). */
function countingShare(body: string): number {
  const chars = body.replace(/[^A-Za-z0-9]/g, '');
  let counted = 0;
  let run = 1;
  for (let i = 1; i <= chars.length; i += 1) {
    const step = i < chars.length && chars.charCodeAt(i) - chars.charCodeAt(i - 1) === 1;
    const sameClass =
      i < chars.length &&
      /\d/.test(chars[i]!) === /\d/.test(chars[i - 1]!) &&
      /[a-z]/.test(chars[i]!) === /[a-z]/.test(chars[i - 1]!);
    if (step && sameClass) run += 1;
    else {
      if (run >= 3) counted += run;
      run = 1;
    }
  }
  return chars.length === 0 ? 0 : counted / chars.length;
}

/** Shannon entropy of the alphanumeric characters times their number: a generous estimate of the bits in a value. */
export function entropyBits(body: string): number {
  const chars = body.replace(/[^A-Za-z0-9]/g, '');
  const counts = new Map<string, number>();
  for (const char of chars) counts.set(char, (counts.get(char) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  return perChar * chars.length;
}

// The weakest key the recommended rules match carries more: an AWS key id's 16 base-32 characters hold ~60
// bits by this estimate, issued Slack, GitHub, npm and Stripe tokens well over 100.
const minimumBits = 48;

/**
 * Why a matched token is obviously made up (readable, never quoting it), or null when it could be an issued
 * key: a marker word (test, fake, dummy, example, secret…), a segment of one repeated character (`xxx`,
 * `AAA`, `000`), mostly counting sequences (`123456789012`, `abc123def456`), or an entropy estimate far below
 * any issued key's. For tokens, not for the password of a URL (a short human password is still a password).
 */
export function madeUpReason(value: string): string | null {
  const body = bodyOf(value);
  const word = [...body.matchAll(markerWord)].find((match) => oneCase(match[0]))?.[0];
  if (word !== undefined) return `the value contains the word "${word.toLowerCase()}"`;
  if (segments(body).some((s) => s.length >= 3 && /^(.)\1+$/.test(s)))
    return 'a part of the value is one repeated character (xxx, 000)';
  if (countingShare(body) >= 0.6) return 'the value is mostly counting sequences (123…, abc…)';
  const bits = entropyBits(body);
  if (bits < minimumBits) return `the value holds about ${Math.round(bits)} bits of entropy, far below an issued key`;
  return null;
}

// Passwords written to be read, not guessed: the generic words of examples, and any marker word.
const wordPassword =
  /^(?:pass|password|passwd|pwd|secret|admin|root|guest|user|changeme|postgres|mysql|default|letmein|qwerty|pass(?:word)?\d{0,3}|secret\d{0,3})$/i;
const markerInCredential = /test|fake|dummy|mock|sample|example|demo/i;

/**
 * Why the user and password of a credential URL are obviously an example (`testuser:testpass`, `user:pass`,
 * `username:password`, `admin:admin`), or null.
 */
export function exampleCredentialReason(user: string, password: string): string | null {
  if (password !== '' && password === user) return 'the password repeats the user name';
  if (wordPassword.test(password)) return 'the password is a generic word (pass, password, admin…)';
  const word = markerInCredential.exec(password)?.[0];
  return word === undefined ? null : `the password contains the word "${word.toLowerCase()}"`;
}

// Service names of a docker compose or Kubernetes network: a host only resolvable inside it (`postgres`,
// `test-db`, `postgres-service`, `redis-1`); one label, no dots.
const serviceHost =
  /^(?:(?:test|dev|local|ci)[-_])?(?:postgres(?:ql)?|pg|db|database|mysql|mariadb|mongo(?:db)?|redis|rabbitmq|amqp|kafka|zookeeper|elasticsearch|opensearch|memcached|minio|clickhouse|cassandra|mssql|sqlserver|neo4j|couchdb|nats)(?:[-_](?:\d+|\{[^}]*\}|test|dev|local|service|svc|server|primary|replica))*$/i;

/** A host that is a service name on a container network (only in documentation, see secrets-context.ts). */
export const isServiceHost = (host: string): boolean => serviceHost.test(host);

// Stripe issues its keys in base62 (digits, upper and lower case letters: `sk_test_4eC39HqLyjWDarjtT1zdp7dc`,
// `sk_live_51…`). A body of lowercase hex digits only is a digest an application made for its own keys under
// Stripe's prefix (NextSpark's `sk_test_` + a SHA-256 for its superadmin key): an issued key of 24 base62
// characters or more spells one by a chance under 1e-14.
const hexBody = /^[sr]k_(?:live|test)_[0-9a-f]{24,}$/;

/**
 * Why a match of rule `rule` cannot be a key its issuer made (readable, never quoting the value), or null.
 * Wherever it is: the value is simply not of the issuer's format.
 */
export function notIssuedReason(rule: string, value: string): string | null {
  if (rule === 'stripe' && hexBody.test(value))
    return 'its body is lowercase hex digits only, a digest, while Stripe issues keys in base62';
  return null;
}
