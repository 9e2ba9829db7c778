import t from 'tap';
import { ACCOUNT_LIMITS, FailureThrottle, LoginThrottle, clientIpKey } from '../../core/auth/throttle.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.UTC(2025, 0, 1);

t.test('five failures in five minutes lock for a minute', async (t) => {
  const th = new FailureThrottle();
  for (let i = 0; i < 4; i++) {
    t.same(th.recordFailure('alice', T0 + i * 10 * S), { allowed: true }, `failure ${i + 1}`);
  }
  t.same(th.check('alice', T0 + 40 * S), { allowed: true });
  t.same(th.recordFailure('alice', T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 }, 'fifth failure locks');
  t.same(th.check('alice', T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 });
  t.same(th.check('alice', T0 + 50 * S + 30_500), { allowed: false, retryAfterSeconds: 30 }, 'Retry-After counts down, rounded up');
  t.same(th.check('alice', T0 + 50 * S + MIN), { allowed: true }, 'lock over');
  t.same(th.check('bob', T0 + 50 * S), { allowed: true }, 'other keys unaffected');
});

t.test('failures spread beyond the window never lock', async (t) => {
  const th = new FailureThrottle();
  for (let i = 0; i < 50; i++) {
    t.same(th.recordFailure('alice', T0 + i * 76 * S), { allowed: true }); // 4 per ~5 min
  }
  t.same(th.check('alice', T0 + 50 * 76 * S), { allowed: true });
});

t.test('exponential back-off up to fifteen minutes', async (t) => {
  const th = new FailureThrottle();
  let now = T0;
  for (let i = 0; i < 5; i++) th.recordFailure('alice', (now += S));
  const expected = [2, 4, 8, 15, 15, 15];
  for (const minutes of expected) {
    const first = th.check('alice', now);
    if (!first.allowed) now += first.retryAfterSeconds * S; // wait out the lock, then fail again
    t.same(th.recordFailure('alice', now), { allowed: false, retryAfterSeconds: minutes * 60 }, `${minutes} min`);
  }
});

t.test('forgiveness and success', async (t) => {
  const th = new FailureThrottle();
  let now = T0;
  for (let i = 0; i < 6; i++) th.recordFailure('alice', (now += S)); // locked, one strike past
  const locked = th.check('alice', now);
  t.equal(locked.allowed, false);
  const lockEnd = now + (locked.allowed ? 0 : locked.retryAfterSeconds * S);
  t.same(th.recordFailure('alice', lockEnd + 10 * MIN), { allowed: false, retryAfterSeconds: 4 * 60 }, 'still penalised after 10 quiet minutes');
  t.same(th.check('alice', lockEnd + 10 * MIN + 4 * MIN + ACCOUNT_LIMITS.forgiveAfterMs), { allowed: true }, 'forgiven after an hour');
  t.same(th.recordFailure('alice', lockEnd + 10 * MIN + 4 * MIN + ACCOUNT_LIMITS.forgiveAfterMs), { allowed: true }, 'back to a fresh budget');

  for (let i = 0; i < 4; i++) th.recordFailure('bob', T0 + i * S);
  th.recordSuccess('bob');
  t.same(th.recordFailure('bob', T0 + 5 * S), { allowed: true }, 'success clears the count');
  t.equal(th.size, 2);
});

t.test('custom limits', async (t) => {
  const th = new FailureThrottle({ maxFailures: 2, windowMs: MIN, baseLockMs: 10 * S, maxLockMs: 25 * S });
  th.recordFailure('k', T0);
  t.same(th.recordFailure('k', T0 + S), { allowed: false, retryAfterSeconds: 10 });
  t.same(th.recordFailure('k', T0 + 11 * S), { allowed: false, retryAfterSeconds: 20 });
  t.same(th.recordFailure('k', T0 + 31 * S), { allowed: false, retryAfterSeconds: 25 }, 'capped');
});

t.test('clock going backwards', async (t) => {
  const th = new FailureThrottle();
  for (let i = 0; i < 5; i++) th.recordFailure('alice', T0 + i * S);
  const back = th.check('alice', T0 - 24 * 60 * MIN);
  t.same(back, { allowed: false, retryAfterSeconds: 15 * 60 }, 'Retry-After never exceeds the maximum lock');
});

t.test('memory is bounded', async (t) => {
  const th = new FailureThrottle({}, { maxEntries: 100 });
  th.recordFailure('victim', T0);
  for (let i = 0; i < 10_000; i++) th.recordFailure(`spray-${i}`, T0 + i);
  t.ok(th.size <= 100, `size ${th.size}`);
  t.same(th.check('victim', T0 + 10_000), { allowed: true }, 'the least recently failing key went first');

  const sweeping = new FailureThrottle({}, { maxEntries: 10 });
  for (let i = 0; i < 10; i++) sweeping.recordFailure(`old-${i}`, T0);
  sweeping.recordFailure('new', T0 + 6 * MIN); // all old entries are stale by now
  t.equal(sweeping.size, 1, 'stale entries are swept before anything live is evicted');

  const long = new FailureThrottle();
  const huge = 'x'.repeat(1_000_000);
  for (let i = 0; i < 5; i++) long.recordFailure(huge + i, T0);
  t.equal(long.size, 1, 'keys are truncated, so giant keys collapse together');
});

t.test('clientIpKey', async (t) => {
  const cases: Array<[string, string]> = [
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['not an ip', 'not an ip'],
  ];
  for (const [ip, key] of cases) t.equal(clientIpKey(ip), key, ip);
  t.equal(clientIpKey('2001:db8:1:2::1'), clientIpKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), 'same /64, same key');
  t.not(clientIpKey('2001:db8:1:2::1'), clientIpKey('2001:db8:1:3::1'));
});

t.test('LoginThrottle: account and address together', async (t) => {
  const lt = new LoginThrottle();
  for (let i = 0; i < 5; i++) lt.recordFailure('Alice', '192.0.2.1', T0 + i * S);
  t.same(lt.check('alice', '198.51.100.9', T0 + 5 * S), { allowed: false, retryAfterSeconds: 59 }, 'account locked from any address, case-insensitively');
  t.same(lt.check('bob', '192.0.2.1', T0 + 5 * S), { allowed: true }, 'the address is still under its own limit');

  const ips = new LoginThrottle();
  for (let i = 0; i < 50; i++) ips.recordFailure(`user${i}`, '2001:db8::1', T0 + i * S);
  t.same(ips.check('fresh-user', '2001:db8::2', T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 - 1 }, 'spraying usernames from one /64 locks the /64');

  const success = new LoginThrottle();
  for (let i = 0; i < 4; i++) success.recordFailure('alice', '192.0.2.1', T0 + i * S);
  success.recordSuccess('ALICE');
  t.same(success.accounts.check('alice', T0 + 5 * S), { allowed: true });
  t.equal(success.ips.size, 1, 'the address keeps its count after a success');
});
