// Two-factor authentication with real TOTP codes (computed by the otpauth library from the enrolment
// URI), replay, and the brute-force throttle on password logins.
import t from 'tap';
import { ACCOUNT_LIMITS } from '../../core/auth/throttle.js';
import { TOTP, URI } from 'otpauth';
import { enableTotp } from '../../core/two-factor.js';
import { startTestServices } from '../helper.js';
import { apiError, basic, makeToken, makeUser, PASSWORD } from './fixtures.js';

const PERIOD_MS = 30_000;

/** Waits out the last seconds of a TOTP step so a test's codes all come from one predictable window. */
async function awayFromStepBoundary(): Promise<number> {
  const intoStep = Date.now() % PERIOD_MS;
  if (intoStep > PERIOD_MS - 5_000) await new Promise((r) => setTimeout(r, PERIOD_MS - intoStep + 200));
  return Math.floor(Date.now() / PERIOD_MS);
}

function codeAt(totp: TOTP, step: number): string {
  return totp.generate({ timestamp: step * PERIOD_MS + 1_000 });
}

t.test('2FA: enrolment through the API, codes required for password logins, never twice, tokens unaffected', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'bob');
  const token = await makeToken(app, 'bob', ['all']);
  const auth = { authorization: basic('bob', PASSWORD) };
  const me = (headers: Record<string, string>) => app.inject({ url: '/api/v1/user', headers });
  const invalidOtp = apiError(app, 'invalid provided OTP');

  const byToken = await app.inject({ method: 'POST', url: '/api/v1/user/2fa/totp', headers: { authorization: `token ${token}` } });
  t.equal(byToken.statusCode, 401, 'a token cannot start an enrolment');
  const enrol = await app.inject({ method: 'POST', url: '/api/v1/user/2fa/totp', headers: auth });
  t.equal(enrol.statusCode, 201);
  t.equal(enrol.headers['cache-control'], 'no-store');
  const totp = URI.parse(enrol.json().otpauth_uri) as TOTP;
  t.equal(totp.issuer, 'pullhost');
  t.equal(totp.label, 'bob');
  t.equal(totp.secret.base32, enrol.json().secret);
  t.same((await app.inject({ url: '/api/v1/user/2fa', headers: auth })).json(), { totp_enabled: false, totp_pending: true });
  t.equal((await me(auth)).statusCode, 200, 'nothing changes before confirmation');

  const step = await awayFromStepBoundary();
  const wrongConfirm = await app.inject({ method: 'PUT', url: '/api/v1/user/2fa/totp/confirm', headers: auth, payload: { code: codeAt(totp, step + 5) } });
  t.equal(wrongConfirm.statusCode, 422, 'a wrong confirmation code');
  t.same(wrongConfirm.json(), apiError(app, 'invalid provided OTP'));
  const confirm = await app.inject({ method: 'PUT', url: '/api/v1/user/2fa/totp/confirm', headers: auth, payload: { code: codeAt(totp, step - 1) } });
  t.equal(confirm.statusCode, 204, 'confirmed with a code of the previous step');
  t.same((await app.inject({ url: '/api/v1/user/2fa', headers: { authorization: `token ${token}` } })).json(), { totp_enabled: true, totp_pending: false });

  const missing = await me(auth);
  t.equal(missing.statusCode, 401, 'password without a code');
  t.same(missing.json(), invalidOtp);
  const wrong = await me({ ...auth, 'x-gitea-otp': codeAt(totp, step + 5) });
  t.equal(wrong.statusCode, 401, 'a wrong code');
  t.same(wrong.json(), invalidOtp);
  t.equal((await me({ ...auth, 'x-gitea-otp': codeAt(totp, step - 1) })).statusCode, 401, 'the confirmation code cannot sign in');

  const code = codeAt(totp, step);
  const ok = await me({ ...auth, 'x-gitea-otp': code });
  t.equal(ok.statusCode, 200, 'a valid code');
  t.equal(ok.json().login, 'bob');
  const replay = await me({ ...auth, 'x-gitea-otp': code });
  t.equal(replay.statusCode, 401, 'the same code again is refused');
  t.same(replay.json(), invalidOtp);
  const next = await me({ ...auth, 'x-service-otp': codeAt(totp, step + 1) });
  t.equal(next.statusCode, 200, 'X-Service-OTP is accepted too');
  t.equal((await me({ ...auth, 'x-gitea-otp': codeAt(totp, step) })).statusCode, 401, 'an earlier step after a later one is a replay');

  t.equal((await me({ authorization: `token ${token}` })).statusCode, 200, 'tokens need no code');
  t.equal((await me({ authorization: basic(token, '') })).statusCode, 200, 'not even inside Basic auth');

  // The window is used up; go back to a clean replay state to exercise the remaining rules now.
  await db('users').where({ name: 'bob' }).update({ totp_last_step: 0 });
  const race = await Promise.all([1, 2, 3].map(() => me({ ...auth, 'x-gitea-otp': codeAt(totp, step) })));
  t.same(race.map((r) => r.statusCode).sort(), [200, 401, 401], 'concurrent uses of one code: exactly one wins');

  await db('users').where({ name: 'bob' }).update({ totp_last_step: 0 });
  const created = await app.inject({ method: 'POST', url: '/api/v1/users/bob/tokens', headers: { ...auth, 'x-gitea-otp': codeAt(totp, step - 1) }, payload: { name: 'with-otp', scopes: ['all'] } });
  t.equal(created.statusCode, 201, 'token creation works with password + code');
  const noCode = await app.inject({ method: 'POST', url: '/api/v1/users/bob/tokens', headers: auth, payload: { name: 'no-otp', scopes: ['all'] } });
  t.equal(noCode.statusCode, 401, 'and not without the code');
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/user/2fa/totp', headers: { ...auth, 'x-gitea-otp': codeAt(totp, step) } })).statusCode, 409, 'no second enrolment while on');

  const offWithoutCode = await app.inject({ method: 'DELETE', url: '/api/v1/user/2fa/totp', headers: auth });
  t.equal(offWithoutCode.statusCode, 401, 'turning 2FA off needs the code');
  const offByToken = await app.inject({ method: 'DELETE', url: '/api/v1/user/2fa/totp', headers: { authorization: `token ${token}` } });
  t.equal(offByToken.statusCode, 401, 'and the password');
  const off = await app.inject({ method: 'DELETE', url: '/api/v1/user/2fa/totp', headers: { ...auth, 'x-gitea-otp': codeAt(totp, step + 1) } });
  t.equal(off.statusCode, 204);
  t.equal((await me(auth)).statusCode, 200, 'password alone works again');
});

t.test('2FA enrolled the way the admin command does it (core enableTotp) is enforced the same way', async (t) => {
  const { app, db } = await startTestServices(t);
  const carol = await makeUser(db, 'carol');
  const uri = await enableTotp(db, carol, app.services.secretKey);
  const totp = URI.parse(uri) as TOTP;
  const step = await awayFromStepBoundary();
  const auth = { authorization: basic('carol', PASSWORD) };
  t.equal((await app.inject({ url: '/api/v1/user', headers: auth })).statusCode, 401);
  t.equal((await app.inject({ url: '/api/v1/user', headers: { ...auth, 'x-gitea-otp': codeAt(totp, step) } })).statusCode, 200);
});

t.test('throttling: repeated wrong passwords give 429 with Retry-After; tokens and other accounts keep working', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const token = await makeToken(app, 'alice');
  const attempt = (password: string, user = 'alice') => app.inject({ url: '/api/v1/user', headers: { authorization: basic(user, password) } });

  for (let i = 1; i <= 5; i++) t.equal((await attempt(`guess ${i}`)).statusCode, 401, `failure ${i} is an ordinary 401`);
  const locked = await attempt('guess 6');
  t.equal(locked.statusCode, 429, 'then the account is locked');
  t.same(locked.json(), apiError(app, 'too many failed login attempts, try again later'));
  const retry = Number(locked.headers['retry-after']);
  t.ok(Number.isInteger(retry) && retry > 0 && retry <= 60, `Retry-After is a positive number of seconds (${retry})`);
  const right = await attempt(PASSWORD);
  t.equal(right.statusCode, 429, 'even the right password is not checked while locked');

  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `token ${token}` } })).statusCode, 200, 'the token still works');
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', token) } })).statusCode, 200, 'also inside Basic auth');
  t.equal((await attempt(PASSWORD, 'bob')).statusCode, 200, 'another account is unaffected');
  t.equal((await attempt(PASSWORD, 'ALICE')).statusCode, 429, 'the lock ignores the case of the name');
});

t.test('throttling: a burst of parallel guesses cannot outrun the count', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'alice');
  const burst = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', `parallel guess ${i}`) } })));
  const statuses = burst.map((r) => r.statusCode);
  const checked = statuses.filter((s) => s === 401).length;
  t.ok(checked <= ACCOUNT_LIMITS.maxFailures, `no more guesses were checked than the throttle allows (${checked})`);
  t.equal(statuses.filter((s) => s === 429).length, 12 - checked, 'the rest were refused unchecked');
  t.ok(burst.filter((r) => r.statusCode === 429).every((r) => Number(r.headers['retry-after']) >= 1), 'with Retry-After');
  for (let i = 0; i < 5; i++) await app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', `sequential guess ${i}`) } });
  t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: basic('alice', PASSWORD) } })).statusCode, 429, 'and the failures still lock the account');
});

t.test('throttling: parallel requests with the right password all get through', async (t) => {
  const { app, db } = await startTestServices(t);
  await makeUser(db, 'bob');
  const burst = await Promise.all(Array.from({ length: 30 }, () => app.inject({ url: '/api/v1/user', headers: { authorization: basic('bob', PASSWORD) } })));
  t.same([...new Set(burst.map((r) => r.statusCode))], [200], 'a busy client with the right password is queued, not refused');
});
