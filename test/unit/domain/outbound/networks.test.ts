import t from 'tap';
import {
  contains,
  defaultDenyNetworks,
  deniedDetail,
  networkHolding,
  parseAddress,
  parseNetwork,
  parseNetworks,
  type Network,
} from '../../../../src/domain/outbound/networks.ts';

const net = (text: string): Network => {
  const parsed = parseNetwork(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};
const inside = (cidr: string, address: string) => contains(net(cidr), parseAddress(address)!);
const defaults = parseNetworks(defaultDenyNetworks).networks;
const deniedByDefault = (address: string) => networkHolding(defaults, parseAddress(address)!)?.text ?? null;

t.test('IPv4 networks: inside, outside and the edges of the range', async (t) => {
  t.ok(inside('169.254.0.0/16', '169.254.169.254'));
  t.ok(inside('169.254.0.0/16', '169.254.0.0'), 'the first address');
  t.ok(inside('169.254.0.0/16', '169.254.255.255'), 'the last address');
  t.notOk(inside('169.254.0.0/16', '169.253.255.255'), 'just below');
  t.notOk(inside('169.254.0.0/16', '169.255.0.0'), 'just above');
  t.ok(inside('172.16.0.0/12', '172.31.255.255'));
  t.notOk(inside('172.16.0.0/12', '172.32.0.0'));
  t.ok(inside('0.0.0.0/0', '8.8.8.8'), '/0 holds every IPv4 address');
  t.ok(inside('127.0.0.7/32', '127.0.0.7'), 'a /32 is one host');
  t.notOk(inside('127.0.0.7/32', '127.0.0.8'));
  t.ok(inside('127.0.0.7', '127.0.0.7'), 'an address alone is one host');
  t.ok(inside('10.0.0.0/9', '10.127.0.1'), 'a prefix that is not a byte boundary');
  t.notOk(inside('10.0.0.0/9', '10.128.0.1'));
});

t.test('IPv6 networks, in every way an address can be written', async (t) => {
  t.ok(inside('fe80::/10', 'fe80::1'));
  t.ok(inside('fe80::/10', 'febf:ffff::1'), 'the last /10 block');
  t.notOk(inside('fe80::/10', 'fec0::1'));
  t.ok(inside('fe80::/10', 'fe80::1%eth0'), 'a zone is ignored');
  t.ok(inside('fe80::/10', '[fe80::abcd]'), 'brackets as a URL writes them');
  t.ok(inside('fd00:ec2::254/128', 'fd00:0ec2:0000:0000:0000:0000:0000:0254'), 'written out in full');
  t.notOk(inside('fd00:ec2::254/128', 'fd00:ec2::255'));
  t.ok(inside('::1/128', '0:0:0:0:0:0:0:1'));
  t.ok(inside('2001:db8::/32', '2001:DB8:1::1'), 'upper case hex');
});

t.test('IPv4-mapped IPv6 addresses are their IPv4 address, both ways', async (t) => {
  t.ok(inside('169.254.0.0/16', '::ffff:169.254.169.254'), 'dotted mapped form');
  t.ok(inside('169.254.0.0/16', '::ffff:a9fe:a9fe'), 'hex mapped form');
  t.ok(inside('169.254.0.0/16', '0:0:0:0:0:ffff:a9fe:a9fe'), 'written out');
  t.ok(inside('::ffff:169.254.0.0/112', '169.254.1.1'), 'a mapped network holds the IPv4 address');
  t.equal(parseAddress('::ffff:169.254.169.254')!.text, '169.254.169.254', 'shown as IPv4');
  t.equal(deniedByDefault('::ffff:169.254.169.254'), '169.254.0.0/16');
  t.equal(deniedByDefault('[::ffff:a9fe:a9fe]'), '169.254.0.0/16');
  t.notOk(inside('::/0', '8.8.8.8'), '::/0 is every IPv6 address, not IPv4');
  t.ok(inside('::/0', '2001:db8::1'));
  t.notOk(inside('0.0.0.0/0', '2001:db8::1'), '0.0.0.0/0 holds no IPv6 address');
  t.notOk(inside('::/96', '1.2.3.4'), 'IPv4-compatible ::a.b.c.d is not the IPv4 address');
});

t.test('the default deny list: metadata and link-local out, private ranges and loopback in', async (t) => {
  t.equal(deniedByDefault('169.254.169.254'), '169.254.0.0/16', 'the cloud metadata address');
  t.equal(deniedByDefault('fe80::a9fe:a9fe'), 'fe80::/10');
  t.equal(deniedByDefault('fd00:ec2::254'), 'fd00:ec2::254/128', 'AWS metadata over IPv6');
  t.equal(deniedByDefault('100.100.100.200'), '100.100.100.200/32', 'Alibaba Cloud metadata');
  t.equal(deniedByDefault('0.0.0.0'), '0.0.0.0/8');
  for (const allowed of ['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '::1', '8.8.8.8', '100.100.100.201'])
    t.equal(deniedByDefault(allowed), null, `${allowed} is reachable`);
});

t.test('addresses that are not addresses', async (t) => {
  for (const text of [
    'localhost',
    'example.com',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-1',
    '0x7f.0.0.1',
    ':::',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    'gggg::1',
    '::ffff:1.2.3.256',
    '',
  ])
    t.equal(parseAddress(text), null, `'${text}'`);
  t.equal(parseAddress('1:2:3:4:5:6:7::')!.text, '1:2:3:4:5:6:7:0', ':: standing for one group');
  t.equal(parseAddress('2001:0db8:0000:0000:0001:0000:0000:0001')!.text, '2001:db8::1:0:0:1', 'RFC 5952 form');
});

t.test('networks that are refused, with a reason an operator can act on', async (t) => {
  const problem = (text: string) => {
    const parsed = parseNetwork(text);
    return 'problem' in parsed ? parsed.problem : null;
  };
  t.match(problem('10.1.0.0/8'), /bits set after its prefix \(did you mean 10\.0\.0\.0\/8\?\)/);
  t.match(problem('fe80::1/10'), /did you mean fe80::\/10/);
  t.match(problem('10.0.0.0/33'), /prefix longer than 32/);
  t.match(problem('::/129'), /prefix longer than 128/);
  t.match(problem('10.0.0.0/'), /no prefix length/);
  t.match(problem('10.0.0.0/x'), /no prefix length/);
  t.match(problem('10.0.0.0/8/8'), /is not a network/);
  t.match(problem('example.com/8'), /is not a network/);
  t.equal(problem('0.0.0.0/0'), null);
  t.equal(problem('::/0'), null);
  const { networks, problems } = parseNetworks(['10.0.0.0/8', 'nonsense']);
  t.equal(networks.length, 1);
  t.strictSame(problems, [
    "gateway.outbound.deny-networks[1]: 'nonsense' is not a network (write e.g. 169.254.0.0/16 or fe80::/10)",
  ]);
});

t.test('a refusal names the host, the address it resolved to and the network', async (t) => {
  const link = net('169.254.0.0/16');
  const metadata = parseAddress('169.254.169.254')!;
  t.equal(
    deniedDetail('metadata.internal', metadata, link),
    'metadata.internal resolves to 169.254.169.254, inside gateway.outbound.deny-networks (169.254.0.0/16)',
  );
  t.equal(
    deniedDetail('169.254.169.254', metadata, link),
    '169.254.169.254 is inside gateway.outbound.deny-networks (169.254.0.0/16)',
  );
  t.equal(
    deniedDetail('[::ffff:a9fe:a9fe]', metadata, link),
    '169.254.169.254 is inside gateway.outbound.deny-networks (169.254.0.0/16)',
    'an IP-literal host in another spelling is the same address',
  );
});
