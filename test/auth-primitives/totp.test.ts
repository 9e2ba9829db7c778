import t from 'tap';
import { TOTP, Secret } from 'otpauth';
import {
  generateTotpSecret,
  totpCodeAt,
  totpStep,
  totpUri,
  verifyTotp,
} from '../../core/auth/totp.js';

// RFC 6238 appendix B: SHA-1 secret "12345678901234567890", 8-digit codes; the 6-digit codes are
// their last six digits.
const RFC_SECRET = new Secret({ buffer: new TextEncoder().encode('12345678901234567890').buffer }).base32;

const NOW = Date.UTC(2025, 0, 15, 12, 0, 10); // 10 s into a step
const STEP_MS = 30_000;
const codeAt = (secret: string, ms: number): string =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms, period: 30, digits: 6, algorithm: 'SHA1' });

t.test('secret and URI', async (t) => {
  const s = generateTotpSecret();
  t.match(s, /^[A-Z2-7]{32}$/, '160 bits of base32, no padding');
  t.not(generateTotpSecret(), s);
  const uri = totpUri(s, 'alice', 'Pull Host');
  t.match(uri, /^otpauth:\/\/totp\/Pull%20Host:alice\?/);
  t.match(uri, new RegExp(`secret=${s}`));
  t.match(uri, /algorithm=SHA1&digits=6&period=30/);
  t.throws(() => totpUri('not base32!', 'alice', 'x'), TypeError);
  t.throws(() => totpUri('AAAA', 'alice', 'x'), TypeError, 'too short');
});

t.test('RFC 6238 vectors', async (t) => {
  const vectors: Array<[number, string]> = [
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ];
  for (const [seconds, code] of vectors) {
    t.equal(totpCodeAt(RFC_SECRET, totpStep(seconds * 1000)), code, `T=${seconds}`);
    t.same(verifyTotp(RFC_SECRET, code, { now: seconds * 1000 }), { ok: true, step: totpStep(seconds * 1000) });
  }
});

t.test('window: current and ±1 step accepted, ±2 refused', async (t) => {
  const secret = generateTotpSecret();
  const step = totpStep(NOW);
  for (const delta of [-1, 0, 1]) {
    const code = codeAt(secret, NOW + delta * STEP_MS);
    t.same(verifyTotp(secret, code, { now: NOW }), { ok: true, step: step + delta }, `delta ${delta}`);
  }
  for (const delta of [-2, 2, -10, 10]) {
    const code = codeAt(secret, NOW + delta * STEP_MS);
    // A collision with a code inside the window is possible (1 in 10^6 per step); skip that case.
    const collides = [-1, 0, 1].some((d) => codeAt(secret, NOW + d * STEP_MS) === code);
    if (!collides) t.same(verifyTotp(secret, code, { now: NOW }), { ok: false }, `delta ${delta}`);
  }
});

t.test('replay protection', async (t) => {
  const secret = generateTotpSecret();
  const code = codeAt(secret, NOW);
  const first = verifyTotp(secret, code, { now: NOW, lastUsedStep: null });
  t.ok(first.ok);
  const usedStep = first.ok ? first.step : -1;
  t.same(verifyTotp(secret, code, { now: NOW, lastUsedStep: usedStep }), { ok: false }, 'same code, same window: refused');
  t.same(verifyTotp(secret, code, { now: NOW + 20_000, lastUsedStep: usedStep }), { ok: false }, 'still refused while it would be in the window');
  const earlier = codeAt(secret, NOW - STEP_MS);
  t.same(verifyTotp(secret, earlier, { now: NOW, lastUsedStep: usedStep }), { ok: false }, 'an older step after a newer one: refused');
  const next = codeAt(secret, NOW + STEP_MS);
  t.same(verifyTotp(secret, next, { now: NOW + STEP_MS, lastUsedStep: usedStep }), { ok: true, step: usedStep + 1 }, 'the next code works');
  t.same(verifyTotp(secret, next, { now: NOW, lastUsedStep: usedStep }), { ok: true, step: usedStep + 1 }, 'so does the next code a little early');
});

t.test('malformed codes', async (t) => {
  const secret = generateTotpSecret();
  const good = codeAt(secret, NOW);
  const bad: unknown[] = [
    '', '12345', '1234567', ' ' + good, good + ' ', good.slice(0, 3) + ' ' + good.slice(3), '12345a', '１２３４５６',
    '-12345', '+12345', '1e5000', null, undefined, 123456, [good], { toString: () => good },
  ];
  for (const code of bad) t.same(verifyTotp(secret, code, { now: NOW }), { ok: false }, JSON.stringify(code));
  t.same(verifyTotp(secret, good, { now: Number.NaN }), { ok: false }, 'NaN time');
  t.throws(() => verifyTotp('bad secret!', good, { now: NOW }), TypeError, 'a corrupt stored secret is a data fault');
});

t.test('lower-case stored secrets work', async (t) => {
  const secret = generateTotpSecret();
  t.same(verifyTotp(secret.toLowerCase(), codeAt(secret, NOW), { now: NOW }), { ok: true, step: totpStep(NOW) });
});
