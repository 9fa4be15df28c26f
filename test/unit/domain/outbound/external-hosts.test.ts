import t from 'tap';
import {
  externalHostRefusal,
  hostMatches,
  hostPatternProblem,
} from '../../../../src/domain/outbound/external-hosts.ts';

t.test('a host matches a name exactly, or a *. pattern below it', async (t) => {
  t.ok(hostMatches('github.com', 'github.com'));
  t.ok(hostMatches('GitHub.com', 'github.com'), 'case does not matter');
  t.ok(hostMatches('github.com.', 'github.com'), 'a trailing dot does not matter');
  t.notOk(hostMatches('api.github.com', 'github.com'), 'a name is not its subdomains');
  t.notOk(hostMatches('evilgithub.com', 'github.com'));
  t.ok(hostMatches('git.example.com', '*.example.com'));
  t.ok(hostMatches('a.b.example.com', '*.example.com'), 'any depth');
  t.notOk(hostMatches('example.com', '*.example.com'), 'not the name itself');
  t.notOk(hostMatches('badexample.com', '*.example.com'));
  t.notOk(hostMatches('example.com.evil.test', '*.example.com'));
});

t.test('patterns the setting accepts and refuses', async (t) => {
  for (const ok of ['github.com', '*.example.com', 'forge', 'git-1.internal', '10.0.0.5', '[::1]'])
    t.equal(hostPatternProblem(ok), null, ok);
  for (const bad of [
    '',
    '*',
    '*.',
    'https://github.com',
    'github.com/acme',
    '*.*.com',
    'a..b',
    '-x.com',
    'git hub.com',
  ])
    t.match(hostPatternProblem(bad), /is not a host name or \*\.host pattern/, `'${bad}'`);
});

t.test('an external source outside the list is refused with the reason; an empty list allows any host', async (t) => {
  t.equal(externalHostRefusal('https://evil.test/x.git', []), null);
  t.equal(externalHostRefusal('https://github.com/acme/x.git', ['github.com']), null);
  t.equal(externalHostRefusal('https://git.example.com/x.git', ['github.com', '*.example.com']), null);
  t.equal(
    externalHostRefusal('https://evil.test/x.git', ['github.com']),
    "external plugin source host 'evil.test' is not in gateway.ingest.external-hosts",
  );
  t.equal(
    externalHostRefusal('http://127.0.0.1:9/x.git', ['github.com']),
    "external plugin source host '127.0.0.1' is not in gateway.ingest.external-hosts",
  );
  t.equal(externalHostRefusal('not a url', ['github.com']), null, 'left to the trust boundary');
});
