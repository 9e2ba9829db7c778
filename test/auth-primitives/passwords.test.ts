import t from 'tap';
import { hash } from '@node-rs/argon2';
import {
  MAX_PASSWORD_LENGTH,
  PASSWORD_HASH_POLICY,
  hashPassword,
  needsRehash,
  verifyAgainstNothing,
  verifyPassword,
} from '../../core/auth/passwords.js';

t.test('hash and verify', async (t) => {
  const passwords = ['correct horse battery staple', 'p', 'пароль🔑', ' leading and trailing ', 'a:b:c', 'x'.repeat(MAX_PASSWORD_LENGTH)];
  for (const p of passwords) {
    const stored = await hashPassword(p);
    t.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/, 'argon2id PHC string with OWASP parameters');
    t.equal(await verifyPassword(stored, p), true, `right password (${p.length} chars)`);
    t.equal(await verifyPassword(stored, p + 'x'), false, 'wrong password');
    t.equal(needsRehash(stored), false);
  }
});

t.test('salted: equal passwords give different hashes', async (t) => {
  const [a, b] = await Promise.all([hashPassword('same'), hashPassword('same')]);
  t.not(a, b);
  t.equal(await verifyPassword(a, 'same'), true);
  t.equal(await verifyPassword(b, 'same'), true);
});

t.test('hashPassword refuses empty and oversized input', async (t) => {
  await t.rejects(hashPassword(''), RangeError);
  await t.rejects(hashPassword('x'.repeat(MAX_PASSWORD_LENGTH + 1)), RangeError);
  await t.rejects(hashPassword(undefined as unknown as string), RangeError);
});

t.test('verifyPassword never throws on hostile input', async (t) => {
  const stored = await hashPassword('secret');
  const hostileStored = ['', 'plain', '$argon2id$garbage', '$2b$10$abcdefghijklmnopqrstuv', stored.slice(0, -5), null, 42];
  for (const s of hostileStored) {
    t.equal(await verifyPassword(s as string, 'secret'), false, `stored ${JSON.stringify(s)}`);
  }
  const hostilePlain = ['', 'x'.repeat(MAX_PASSWORD_LENGTH + 1), null, undefined, 42, {}];
  for (const p of hostilePlain) {
    t.equal(await verifyPassword(stored, p as string), false, `plain ${JSON.stringify(p)}`);
  }
});

t.test('needsRehash', async (t) => {
  const weaker = await hash('pw', { memoryCost: 4096, timeCost: 1, parallelism: 1 });
  t.equal(needsRehash(weaker), true, 'weaker memory/time cost');
  const argon2i = await hash('pw', { ...PASSWORD_HASH_POLICY, algorithm: 1 } as Parameters<typeof hash>[1]);
  t.equal(needsRehash(argon2i), true, 'argon2i');
  const stronger = await hash('pw', { ...PASSWORD_HASH_POLICY, memoryCost: 32768 } as Parameters<typeof hash>[1]);
  t.equal(needsRehash(stronger), false, 'stronger than policy is fine');
  t.equal(await verifyPassword(weaker, 'pw'), true, 'old hashes still verify');
  for (const s of ['', 'pbkdf2$...', '$argon2id$v=19$m=x']) t.equal(needsRehash(s), true, JSON.stringify(s));
});

t.test('verifyAgainstNothing', async (t) => {
  t.equal(await verifyAgainstNothing('anything'), false);
  t.equal(await verifyAgainstNothing(''), false);
  t.equal(await verifyAgainstNothing(null as unknown as string), false);
});
