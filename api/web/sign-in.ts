// The web sign-in rules, step by step (the API does both steps in one request): the password,
// then the TOTP code for 2FA accounts. Both steps count failures in the app's one LoginThrottle,
// so the web form is no way around the API's limits, and a locked account costs no argon2 time.
import type { Knex } from 'knex';
import { verifyAgainstNothing, verifyPassword } from '../../core/auth/passwords.js';
import { openSecret } from '../../core/auth/secret-box.js';
import type { LoginThrottle } from '../../core/auth/throttle.js';
import { verifyTotp } from '../../core/auth/totp.js';
import { twoFactorStore } from '../../db/two-factor.js';
import { USER_TYPE, usersStore, type UserRow } from '../../db/users.js';

export type SignInStep =
  | { kind: 'signed-in'; user: UserRow }
  | { kind: 'totp-needed'; user: UserRow }
  | { kind: 'invalid' }
  | { kind: 'throttled'; retryAfterSeconds: number };

export interface SignInDeps {
  db: Knex;
  secretKey: Buffer;
  throttle: LoginThrottle;
  ip: string;
}

export async function checkPassword(deps: SignInDeps, username: string, password: string): Promise<SignInStep> {
  if (username === '' || password === '') return { kind: 'invalid' };
  const now = Date.now();
  const decision = await deps.throttle.check(username, deps.ip, now);
  if (!decision.allowed) return { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  const user = username.length <= 255 ? await usersStore(deps.db).byName(username) : undefined;
  if (!user || user.type !== USER_TYPE.user) {
    await verifyAgainstNothing(password);
    await deps.throttle.recordFailure(username, deps.ip, now);
    return { kind: 'invalid' };
  }
  if (!(await verifyPassword(user.passwd_hash, password))) {
    await deps.throttle.recordFailure(username, deps.ip, now);
    return { kind: 'invalid' };
  }
  if (user.totp_secret) return { kind: 'totp-needed', user };
  await deps.throttle.recordSuccess(username);
  return { kind: 'signed-in', user };
}

/** The second step; the code's time step is claimed so one code signs in once. */
export async function checkTotpCode(deps: SignInDeps, userId: number, code: string): Promise<SignInStep> {
  const user = await usersStore(deps.db).byId(userId);
  if (!user || !user.totp_secret) return { kind: 'invalid' };
  const now = Date.now();
  const decision = await deps.throttle.check(user.name, deps.ip, now);
  if (!decision.allowed) return { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
  const secret = openSecret(user.totp_secret, deps.secretKey);
  if (secret === null) throw new Error(`the TOTP secret of user ${user.id} cannot be opened with the server key`);
  const result = verifyTotp(secret, code, { now, lastUsedStep: user.totp_last_step });
  if (!result.ok || !(await twoFactorStore(deps.db).claimStep(user.id, result.step))) {
    await deps.throttle.recordFailure(user.name, deps.ip, now);
    return { kind: 'invalid' };
  }
  await deps.throttle.recordSuccess(user.name);
  return { kind: 'signed-in', user };
}

/** Only local paths are followed after sign-in (no open redirect to another site). */
export function safeRedirectTarget(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/user/settings/applications';
  return value;
}
