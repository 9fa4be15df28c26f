import t from 'tap';
import { registrationRefusal, type RegistrationRequest } from '../../../../src/domain/marketplace/trust-boundary.ts';

// URL scheme not allowlisted; url with
// userinfo; ref present and not `main`; hosted with a url; upstream without one; pushPolicy on an
// upstream marketplace. Configuration: gateway.allowed-url-schemes, "compared lower-cased;
// unparsable or schemeless URL rejected".
const both = ['http', 'https'] as const;
const httpsOnly = ['https'] as const;
const upstream = (url: string | null, more: Partial<RegistrationRequest> = {}): RegistrationRequest => ({
  origin: 'upstream',
  url,
  ref: null,
  pushPolicy: null,
  ...more,
});
const hosted = (more: Partial<RegistrationRequest> = {}): RegistrationRequest => ({
  origin: 'hosted',
  url: null,
  ref: null,
  pushPolicy: null,
  ...more,
});

t.test('accepted: an upstream http(s) URL, a hosted marketplace with or without a push policy', async (t) => {
  t.equal(registrationRefusal(upstream('https://github.com/acme/plugins.git'), both), null);
  t.equal(registrationRefusal(upstream('http://127.0.0.1:8080/acme.git'), both), null);
  t.equal(registrationRefusal(hosted(), both), null);
  t.equal(registrationRefusal(hosted({ pushPolicy: 'append-only' }), both), null);
  t.equal(registrationRefusal(hosted({ pushPolicy: 'allow-rewrite' }), both), null);
});

t.test('spec: the scheme is "compared lower-cased": HTTPS:// is accepted when https is allowed', async (t) => {
  t.equal(registrationRefusal(upstream('HTTPS://github.com/acme/plugins.git'), httpsOnly), null);
  t.equal(registrationRefusal(upstream('HtTpS://github.com/acme/plugins.git'), httpsOnly), null);
});

t.test('spec: "ref present and not main" is 400; main (and refs/heads/main, decision 46) is accepted', async (t) => {
  t.equal(registrationRefusal(upstream('https://example.test/a.git', { ref: 'main' }), both), null);
  t.equal(registrationRefusal(upstream('https://example.test/a.git', { ref: 'refs/heads/main' }), both), null);
  t.equal(registrationRefusal(hosted({ ref: 'main' }), both), null, 'also on a hosted marketplace');
  for (const ref of ['master', 'develop', 'Main', 'refs/heads/master', 'refs/tags/main', '']) {
    t.match(
      registrationRefusal(upstream('https://example.test/a.git', { ref }), both),
      {
        code: 'trust-boundary',
        detail: /ingests the upstream's default branch, whatever its name \(master too\), and serves it as main/,
      },
      JSON.stringify(ref),
    );
  }
  t.match(registrationRefusal(hosted({ ref: 'develop' }), both), { code: 'trust-boundary' }, 'hosted with another ref');
});

t.test('spec: "URL scheme not allowlisted" is 400', async (t) => {
  const cases: Array<[string, readonly string[]]> = [
    ['http://example.test/a.git', httpsOnly],
    ['ftp://example.test/a.git', both],
    ['file:///srv/git/a.git', both],
    ['ssh://git@example.test/a.git', both],
    ['git://example.test/a.git', both],
    ['ext::sh -c touch% /tmp/pwned', both],
    ['FILE:///srv/git/a.git', both],
  ];
  for (const [url, allowed] of cases) {
    t.match(
      registrationRefusal(upstream(url), allowed),
      { code: 'trust-boundary', detail: /URL scheme '.*' is not allowed/ },
      `${url} with [${allowed.join(', ')}]`,
    );
  }
  t.match(
    registrationRefusal(upstream('FTP://example.test/a.git'), both)?.detail,
    /scheme 'ftp'/,
    'the detail names the scheme lower-cased',
  );
  t.match(
    registrationRefusal(upstream('http://example.test/a.git'), httpsOnly)?.detail,
    /allowed: https \(gateway\.allowed-url-schemes\)/,
    'and the allowlist',
  );
});

t.test('spec: an "unparsable or schemeless URL" is rejected (400)', async (t) => {
  for (const url of [
    'not a url',
    'github.com/acme/plugins',
    'git@github.com:acme/plugins.git',
    '//example.test/a.git',
    '',
    'https://exa mple.test/a.git',
    'http://[::1/a.git',
  ]) {
    t.match(
      registrationRefusal(upstream(url), both),
      { code: 'trust-boundary', detail: /cannot be parsed|is not allowed/ },
      JSON.stringify(url),
    );
  }
});

t.test('spec: "url with userinfo" is 400 (user, password, or both)', async (t) => {
  for (const url of [
    'https://user@example.test/a.git',
    'https://user:secret@example.test/a.git',
    'https://:secret@example.test/a.git',
    'HTTPS://token@example.test/a.git',
  ]) {
    t.match(registrationRefusal(upstream(url), both), { code: 'trust-boundary', detail: /user information/ }, url);
  }
});

t.test('userinfo that git would read is refused even where the WHATWG parser sees none', async (t) => {
  t.match(
    registrationRefusal(upstream('http://token\\@127.0.0.1:8080/acme.git'), both),
    { code: 'trust-boundary' },
    'http://token\\@host/…',
  );
  t.match(
    registrationRefusal(upstream('https://ghp_secret\\@github.com/acme/plugins.git'), both),
    { code: 'trust-boundary' },
    'https://secret\\@github.com/…',
  );
});

t.test('an empty userinfo, which the WHATWG parser drops, is refused like any other', async (t) => {
  for (const url of [
    'http://:@127.0.0.1:8080/repo.git',
    'http://@host.test/x.git',
    'http://:@host.test',
    'https://@github.com/acme/plugins.git',
    'HTTP://:@host.test/x.git',
    'http:@host.test/x.git',
    'http:///@host.test/x.git',
  ]) {
    t.match(registrationRefusal(upstream(url), both), { code: 'trust-boundary', detail: /user information/ }, url);
  }
  for (const url of ['http://user@', 'http://:pw@', 'http://@']) {
    t.match(registrationRefusal(upstream(url), both), { code: 'trust-boundary' }, `${url} (no host either)`);
  }
});

t.test('an @ after the authority (path, query, fragment) is not userinfo', async (t) => {
  for (const url of [
    'https://host.test/acme/plugins@v2.git',
    'https://host.test/acme/plugins.git?at=@main',
    'https://host.test/acme/plugins.git#@frag',
    'http://127.0.0.1:8080/@scope/repo.git',
  ]) {
    t.equal(registrationRefusal(upstream(url), both), null, url);
  }
});

t.test('spec: "hosted with a url" is 400', async (t) => {
  t.match(registrationRefusal(hosted({ url: 'https://example.test/a.git' }), both), {
    code: 'trust-boundary',
    detail: /hosted marketplace has no url/,
  });
});

t.test('spec: "upstream without one" is 400', async (t) => {
  t.match(registrationRefusal(upstream(null), both), { code: 'trust-boundary', detail: /needs the url/ });
});

t.test('spec: "pushPolicy on an upstream marketplace" is 400, whichever policy', async (t) => {
  for (const pushPolicy of ['append-only', 'allow-rewrite'] as const) {
    t.match(
      registrationRefusal(upstream('https://example.test/a.git', { pushPolicy }), both),
      { code: 'trust-boundary', detail: /pushPolicy applies only to hosted/ },
      pushPolicy,
    );
  }
});

t.test('every refusal is a trust-boundary rejection (400), never anything else', async (t) => {
  const refusals = [
    upstream('ftp://x/a.git'),
    upstream('https://u@x/a.git'),
    upstream('https://x/a.git', { ref: 'dev' }),
    hosted({ url: 'https://x/a.git' }),
    upstream(null),
    upstream('https://x/a.git', { pushPolicy: 'append-only' }),
    upstream('nope'),
  ].map((request) => registrationRefusal(request, both));
  t.strictSame(
    refusals.map((r) => r?.code),
    Array(7).fill('trust-boundary'),
  );
  t.ok(
    refusals.every((r) => typeof r?.detail === 'string' && r.detail.length > 0),
    'each says why',
  );
});
