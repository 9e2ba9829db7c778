// WEBHOOK_ALLOWED_HOST_LIST on real sockets: refused addresses are never connected to, whether
// named directly, through the system resolver (`localhost`) or through a name a resolver answers
// with a refused address; the address checked is the one connected to (a second answer cannot
// swap it); redirects are followed only to allowed addresses. The names `*.test` are answered by
// a resolver the test hands the sender (the hook the worker's deliveries use is the same).
import t from 'tap';
import { HostAllowList } from '../../workers/webhook-address.js';
import { sendDelivery, type Resolver } from '../../workers/webhook-http.js';
import { Receiver } from './receiver.js';

const request = (url: string) => ({ url, method: 'POST' as const, headers: { 'Content-Type': 'application/json' }, body: '{}' });

t.test("the allow list reads Gitea's syntax", async (t) => {
  const external = HostAllowList.parse('');
  for (const refused of ['127.0.0.1', '127.9.9.9', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '0.1.2.3', '::',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fe80::1', 'fc00::1', '100.64.0.1', '192.0.2.1', '224.0.0.1', '64:ff9b::a9fe:a9fe']) {
    t.notOk(external.allows(refused, refused), `external (the default) refuses ${refused}`);
  }
  for (const allowed of ['8.8.8.8', '93.184.216.34', '2606:4700::1111']) t.ok(external.allows(allowed, allowed), `external allows ${allowed}`);
  const loopback = HostAllowList.parse('loopback');
  t.ok(loopback.allows('127.0.0.5', '127.0.0.5'));
  t.ok(loopback.allows('::1', '::1'));
  t.notOk(loopback.allows('10.0.0.1', '10.0.0.1'));
  t.notOk(loopback.allows('8.8.8.8', '8.8.8.8'), 'loopback alone is only loopback');
  const privateList = HostAllowList.parse('private');
  t.ok(privateList.allows('10.0.0.1', '10.0.0.1'));
  t.notOk(privateList.allows('127.0.0.1', '127.0.0.1'));
  t.notOk(privateList.allows('169.254.169.254', '169.254.169.254'), 'link-local is never private');
  const cidr = HostAllowList.parse(' 192.168.7.0/24 , hooks.example.com,*.ci.example.org');
  t.ok(cidr.allows('192.168.7.9', '192.168.7.9'));
  t.notOk(cidr.allows('192.168.8.9', '192.168.8.9'));
  t.ok(cidr.allows('hooks.example.com', '10.0.0.1'), 'a host name pattern admits the name, as Gitea does');
  t.ok(cidr.allows('a.b.ci.example.org', '8.8.8.8'));
  t.notOk(cidr.allows('example.org', '8.8.8.8'));
  t.ok(HostAllowList.parse('*').allows('anything', '127.0.0.1'));
});

t.test('refused addresses are never connected to', async (t) => {
  const receiver = new Receiver();
  await receiver.start();
  t.teardown(() => receiver.stop());
  const lookups: string[] = [];
  const resolve: Resolver = async (host) => {
    lookups.push(host);
    return [{ address: '127.0.0.1', family: 4 }];
  };
  const external = { allowList: HostAllowList.parse('external'), skipTlsVerify: false, timeoutMs: 2000, resolve };
  for (const url of [
    receiver.url, `http://localhost:${receiver.port}/hook`, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
    `http://evil.test:${receiver.port}/hook`, `https://evil.test:${receiver.port}/hook`,
  ]) {
    const result = await sendDelivery(request(url), url.includes('localhost') ? { ...external, resolve: undefined } : external);
    t.match(result, { kind: 'error', retryable: false }, url);
    t.match((result as { message: string }).message, /webhook can only call allowed HTTP servers \(check your WEBHOOK_ALLOWED_HOST_LIST setting\), deny/);
  }
  t.ok(lookups.includes('evil.test'), 'the name was resolved, and its answer refused');
  t.equal(receiver.connections, 0, 'no connection was ever made');
  t.equal(receiver.received.length, 0);
});

t.test('the address checked is the address connected to, and redirects are checked too', async (t) => {
  const allowed = new Receiver('127.0.0.2');
  const refused = new Receiver('127.0.0.1');
  await Promise.all([allowed.start(), refused.start()]);
  t.teardown(() => Promise.all([allowed.stop(), refused.stop()]));
  // The port is the same on both addresses, so only the address decides where a request lands.
  await refused.stop();
  refused.port = allowed.port;
  await refused.start();
  let answers = 0;
  // A rebinding resolver: first an allowed address, then a refused one.
  const resolve: Resolver = async () => [{ address: answers++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
  const settings = { allowList: HostAllowList.parse('127.0.0.2/32'), skipTlsVerify: false, timeoutMs: 2000, resolve };
  const first = await sendDelivery(request(`http://rebind.test:${allowed.port}/hook`), settings);
  t.match(first, { kind: 'response', response: { status: 200 } });
  t.equal(allowed.received.length, 1, 'the request went to the address that was checked');
  t.equal(refused.received.length, 0);
  t.equal(allowed.received[0]!.headers.Host, `rebind.test:${allowed.port}`, 'under its own name');
  const second = await sendDelivery(request(`http://rebind.test:${allowed.port}/hook`), settings);
  t.match(second, { kind: 'error', retryable: false }, 'the next answer, a refused address, is refused');
  t.equal(refused.received.length, 0);

  allowed.answer = (r) => (r.path === '/hook'
    ? { status: 307, headers: { location: `http://127.0.0.1:${allowed.port}/inside` } }
    : { status: 200, body: 'second hop' });
  const redirected = await sendDelivery(request(allowed.url), settings);
  t.match(redirected, { kind: 'error', retryable: false }, 'a redirect to a refused address is not followed');
  t.equal(refused.received.length, 0, 'the refused address was never contacted');
  allowed.answer = (r) => (r.path === '/hook' ? { status: 308, headers: { location: '/next' } } : { status: 200, body: 'second hop' });
  const followed = await sendDelivery(request(allowed.url), settings);
  t.match(followed, { kind: 'response', response: { status: 200, body: 'second hop' } }, 'a 308 to an allowed address is followed');
  t.equal(allowed.received.at(-1)!.body, '{}', 'with the same body');
  allowed.answer = () => ({ status: 302, headers: { location: '/elsewhere' } });
  t.match(await sendDelivery(request(allowed.url), settings), { kind: 'response', response: { status: 302 } }, 'a 302 is an answer, not followed');
});

t.test('a timeout and a refused connection are retryable failures', async (t) => {
  const slow = new Receiver();
  await slow.start();
  t.teardown(() => slow.stop());
  slow.answer = () => ({ status: 200, delayMs: 1500 });
  const settings = { allowList: HostAllowList.parse('loopback'), skipTlsVerify: false, timeoutMs: 300 };
  const timedOut = await sendDelivery(request(slow.url), settings);
  t.match(timedOut, { kind: 'error', retryable: true, message: 'timed out after 300 ms' });
  t.ok(timedOut.durationMs < 1200, `gave up after ${timedOut.durationMs} ms`);
  t.match(await sendDelivery(request('http://127.0.0.1:1/hook'), settings), { kind: 'error', retryable: true, message: /ECONNREFUSED/ });
});
