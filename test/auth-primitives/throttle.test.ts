// The failed-login throttle's rules, on its real store: MariaDB (as the API processes share it),
// and SQLite once. Time is passed in, so the tests control it.
import t from 'tap';
import { ACCOUNT_LIMITS, LoginThrottle, clientIpKey } from '../../core/auth/throttle.js';
import { loginThrottleStore } from '../../db/login-throttle.js';
import { startTestServices } from '../helper.js';
import type { Db } from '../../db/connection.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.UTC(2025, 0, 1);
const IP = '192.0.2.1';

let db: Db;
t.before(async () => {
  db = (await startTestServices(t)).db;
});

/** A throttle over a clean table (each test starts from nothing). */
async function fresh(options: ConstructorParameters<typeof LoginThrottle>[1] = {}, on: Db = db): Promise<LoginThrottle> {
  await on('login_throttle').delete();
  return new LoginThrottle(loginThrottleStore(on), options);
}

/** The account's own decision (the address kept under its limit by using a fresh one per failure). */
async function fail(th: LoginThrottle, account: string, now: number): Promise<unknown> {
  await th.recordFailure(account, `198.51.100.${Math.floor(Math.random() * 250)}`, now);
  const state = await th.state('account', account, now);
  return state && !state.allowed ? { allowed: false, retryAfterSeconds: state.retryAfterSeconds } : { allowed: true };
}

t.test('five failures in five minutes lock for a minute', async (t) => {
  const th = await fresh();
  for (let i = 0; i < 4; i++) t.same(await fail(th, 'alice', T0 + i * 10 * S), { allowed: true }, `failure ${i + 1}`);
  t.same(await th.check('alice', IP, T0 + 40 * S), { allowed: true });
  t.same(await fail(th, 'alice', T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 }, 'fifth failure locks');
  t.same(await th.check('alice', IP, T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 });
  t.same(await th.check('alice', IP, T0 + 50 * S + 30_500), { allowed: false, retryAfterSeconds: 30 }, 'Retry-After counts down, rounded up');
  t.same(await th.check('alice', IP, T0 + 50 * S + MIN), { allowed: true }, 'lock over');
  t.same(await th.check('bob', IP, T0 + 50 * S), { allowed: true }, 'other keys unaffected');
});

t.test('failures spread beyond the window never lock', async (t) => {
  const th = await fresh();
  for (let i = 0; i < 20; i++) t.same(await fail(th, 'alice', T0 + i * 76 * S), { allowed: true }); // 4 per ~5 min
  t.same(await th.check('alice', IP, T0 + 20 * 76 * S), { allowed: true });
});

t.test('exponential back-off up to fifteen minutes', async (t) => {
  const th = await fresh();
  let now = T0;
  for (let i = 0; i < 5; i++) await fail(th, 'alice', (now += S));
  for (const minutes of [2, 4, 8, 15, 15, 15]) {
    const first = await th.check('alice', IP, now);
    if (!first.allowed) now += first.retryAfterSeconds * S; // wait out the lock, then fail again
    t.same(await fail(th, 'alice', now), { allowed: false, retryAfterSeconds: minutes * 60 }, `${minutes} min`);
  }
});

t.test('forgiveness and success', async (t) => {
  const th = await fresh();
  let now = T0;
  for (let i = 0; i < 6; i++) await fail(th, 'alice', (now += S)); // locked, one strike past
  const locked = await th.check('alice', IP, now);
  t.equal(locked.allowed, false);
  const lockEnd = now + (locked.allowed ? 0 : locked.retryAfterSeconds * S);
  t.same(await fail(th, 'alice', lockEnd + 10 * MIN), { allowed: false, retryAfterSeconds: 4 * 60 }, 'still penalised after 10 quiet minutes');
  const later = lockEnd + 10 * MIN + 4 * MIN + ACCOUNT_LIMITS.forgiveAfterMs;
  t.same(await th.check('alice', IP, later), { allowed: true }, 'forgiven after an hour');
  t.same(await fail(th, 'alice', later), { allowed: true }, 'back to a fresh budget');

  for (let i = 0; i < 4; i++) await fail(th, 'bob', T0 + i * S);
  await th.recordSuccess('bob');
  t.same(await fail(th, 'bob', T0 + 5 * S), { allowed: true }, 'success clears the count');
  t.match(await th.state('account', 'bob', T0 + 5 * S), { failures: 1 });
});

t.test('custom limits', async (t) => {
  const th = await fresh({ account: { maxFailures: 2, windowMs: MIN, baseLockMs: 10 * S, maxLockMs: 25 * S } });
  await fail(th, 'k', T0);
  t.same(await fail(th, 'k', T0 + S), { allowed: false, retryAfterSeconds: 10 });
  t.same(await fail(th, 'k', T0 + 11 * S), { allowed: false, retryAfterSeconds: 20 });
  t.same(await fail(th, 'k', T0 + 31 * S), { allowed: false, retryAfterSeconds: 25 }, 'capped');
});

t.test('clock going backwards', async (t) => {
  const th = await fresh();
  for (let i = 0; i < 5; i++) await fail(th, 'alice', T0 + i * S);
  t.same(await th.check('alice', IP, T0 - 24 * 60 * MIN), { allowed: false, retryAfterSeconds: 15 * 60 }, 'Retry-After never exceeds the maximum lock');
});

t.test('the table holds hashes, and quiet rows are swept', async (t) => {
  const th = await fresh();
  await th.recordFailure('victim', IP, T0);
  const rows = await db('login_throttle').select('key_hash');
  t.equal(rows.length, 2, 'one row for the account, one for the address');
  for (const row of rows) t.match(row.key_hash, /^[0-9a-f]{64}$/, 'no account name or address stored');
  const huge = 'x'.repeat(1_000_000);
  for (let i = 0; i < 3; i++) await th.recordFailure(huge + i, IP, T0 + S);
  t.equal((await db('login_throttle').count({ n: '*' }))[0]!.n, 3, 'keys are truncated, so giant keys collapse together');
  // A failure an hour and more later sweeps what has been quiet for the forgiveness period.
  await th.recordFailure('someone', '203.0.113.9', T0 + ACCOUNT_LIMITS.forgiveAfterMs + 2 * MIN);
  t.equal((await db('login_throttle').count({ n: '*' }))[0]!.n, 2, 'only the new failure\'s rows are left');
});

t.test('failures counted at once by many callers are all counted', async (t) => {
  const th = await fresh({ account: { maxFailures: 1000 }, ip: { maxFailures: 1000 } });
  // Separate throttles over the same table, as separate API processes have.
  const others = [th, new LoginThrottle(loginThrottleStore(db), { account: { maxFailures: 1000 } }), new LoginThrottle(loginThrottleStore(db), { account: { maxFailures: 1000 } })];
  await Promise.all(Array.from({ length: 40 }, (_, i) => others[i % 3]!.recordFailure('alice', IP, T0 + S)));
  t.match(await th.state('account', 'alice', T0 + S), { failures: 40 }, '40 concurrent failures, 40 counted');
  t.match(await th.state('ip', IP, T0 + S), { failures: 40 }, 'on the address too');
  // Another process's clock (or its request) a little ahead: its failure still counts here.
  await others[1]!.recordFailure('bob', IP, T0 + 2 * S);
  await others[2]!.recordFailure('bob', IP, T0 + S);
  t.match(await th.state('account', 'bob', T0 + 2 * S), { failures: 2 }, 'a failure stamped a moment later elsewhere is kept');
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

t.test('account and address together', async (t) => {
  const lt = await fresh();
  for (let i = 0; i < 5; i++) await lt.recordFailure('Alice', IP, T0 + i * S);
  t.same(await lt.check('alice', '198.51.100.9', T0 + 5 * S), { allowed: false, retryAfterSeconds: 59 }, 'account locked from any address, case-insensitively');
  t.same(await lt.check('bob', IP, T0 + 5 * S), { allowed: true }, 'the address is still under its own limit');

  const ips = await fresh();
  for (let i = 0; i < 50; i++) await ips.recordFailure(`user${i}`, '2001:db8::1', T0 + i * S);
  t.same(await ips.check('fresh-user', '2001:db8::2', T0 + 50 * S), { allowed: false, retryAfterSeconds: 60 - 1 }, 'spraying usernames from one /64 locks the /64');

  const success = await fresh();
  for (let i = 0; i < 4; i++) await success.recordFailure('alice', IP, T0 + i * S);
  await success.recordSuccess('ALICE');
  t.equal(await success.state('account', 'alice', T0 + 5 * S), null, 'the account is clear');
  t.match(await success.state('ip', IP, T0 + 5 * S), { failures: 4 }, 'the address keeps its count after a success');
});

t.test('the same rules on SQLite', async (t) => {
  const sqlite = (await startTestServices(t, { dbType: 'sqlite3' })).db;
  const th = await fresh({}, sqlite);
  for (let i = 0; i < 5; i++) await th.recordFailure('alice', IP, T0 + i * S);
  t.same(await th.check('alice', IP, T0 + 5 * S), { allowed: false, retryAfterSeconds: 59 });
  await th.recordSuccess('alice');
  t.same(await th.check('alice', IP, T0 + 5 * S), { allowed: true });
});
