// Resolves the credentials of a request to an account, as Gitea's API auth group does
// (services/auth/oauth2.go, basic.go): personal tokens, OAuth2 access tokens through an installed
// verifier, Basic with a token as username or password, and Basic with the password (throttled,
// plus a TOTP code for 2FA accounts). Also the account checks and sudo that follow.
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError } from './errors.js';
import { basicTokenCandidate, parseCredentials, type CredentialInput, type Credentials } from './auth/credentials.js';
import {
  INVALID_OTP_MESSAGE,
  LOGIN_PROHIBITED_MESSAGE,
  MUST_CHANGE_PASSWORD_GIT_MESSAGE,
  SUDO_NOT_ALLOWED_MESSAGE,
  TOO_MANY_LOGIN_ATTEMPTS_MESSAGE,
  mustChangePasswordMessage,
} from './auth/messages.js';
import { hashPassword, needsRehash, verifyAgainstNothing, verifyPassword } from './auth/passwords.js';
import { AccessTokenScopeError, type AccessTokenScope } from './auth/scopes.js';
import { openSecret } from './auth/secret-box.js';
import type { LoginThrottle } from './auth/throttle.js';
import { verifyTotp } from './auth/totp.js';
import { resolveAccessToken, tokenUseIsStale, touchAccessToken } from './access-tokens.js';
import { twoFactorStore } from '../db/two-factor.js';
import { USER_TYPE, usersStore, type UserRow } from '../db/users.js';

/** What an OAuth2 access token (a JWT from our provider) grants. */
export interface OAuth2Grant {
  userId: number;
  /** API scopes of the grant (see scopesFromOAuthGrant); `['all']` when unrestricted. */
  scopes: AccessTokenScope[];
}

/** Verifies an OAuth2 access token; null when it is not valid (expired, revoked, bad signature). */
export type OAuth2TokenVerifier = (token: string) => Promise<OAuth2Grant | null>;

export interface AuthenticationDeps {
  db: Knex;
  secretKey: Buffer;
  throttle: LoginThrottle;
  /** Null until the OAuth2 provider installs one; then JWTs are refused with 401. */
  oauth2: OAuth2TokenVerifier | null;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Failures of background work (the token `last used` write) that must not fail the request. */
  onBackgroundError?: (err: unknown) => void;
  /**
   * Password checks running now, per lower-cased account name. The throttle counts failures only
   * once argon2 has answered, so without this bound a burst of parallel guesses would all be checked
   * before the first failure is recorded. Leave it out to impose no bound.
   */
  passwordChecksInFlight?: Map<string, PasswordGate>;
}

/** Password checks for one account run one at a time, so the throttle has counted every earlier failure before the next guess is checked; others wait their turn. */
export const MAX_CONCURRENT_PASSWORD_CHECKS = 1;

export interface AuthenticationInput {
  /** The TOTP code from X-Gitea-OTP / X-Service-OTP (otpFromHeaders), or null. */
  otp: string | null;
  /** The client address, for the per-address login throttle. */
  ip: string;
}

export type Authentication =
  | { user: null; method: 'none'; scopes: null; tokenId: null }
  | { user: UserRow; method: 'password' | 'token' | 'oauth2'; scopes: AccessTokenScope[] | null; tokenId: number | null };

const ANONYMOUS: Authentication = Object.freeze({ user: null, method: 'none', scopes: null, tokenId: null });

function invalid(): UnauthorizedError {
  return new UnauthorizedError();
}

async function viaPersonalToken(deps: AuthenticationDeps, value: string): Promise<Authentication | null> {
  let resolved;
  try {
    resolved = await resolveAccessToken(deps.db, deps.secretKey, value);
  } catch (err) {
    // A stored scope this version cannot read: Gitea refuses the request rather than ignoring scopes.
    if (err instanceof AccessTokenScopeError) throw new ForbiddenError(`checking scope failed: ${err.message}`);
    throw err;
  }
  // Organizations never sign in, whatever a row says.
  if (!resolved || resolved.user.type !== USER_TYPE.user) return null;
  const nowSeconds = Math.floor((deps.now ?? Date.now)() / 1000);
  // Not awaited: recording use must neither slow nor fail the request.
  if (tokenUseIsStale(resolved.token, nowSeconds)) touchAccessToken(deps.db, resolved.token, nowSeconds).catch((err) => deps.onBackgroundError?.(err));
  return { user: resolved.user, method: 'token', scopes: resolved.scopes, tokenId: resolved.token.id };
}

async function viaOAuth2(deps: AuthenticationDeps, value: string): Promise<Authentication | null> {
  if (!deps.oauth2) return null;
  const grant = await deps.oauth2(value);
  if (!grant) return null;
  const user = await usersStore(deps.db).byId(grant.userId);
  if (!user || user.type !== USER_TYPE.user) return null;
  return { user, method: 'oauth2', scopes: grant.scopes, tokenId: null };
}

/**
 * Password login. The throttle is consulted before anything costly, so a locked account gives no
 * signal about a guess and costs no argon2 time. Unknown accounts cost the same argon2 time as
 * known ones. For 2FA accounts the code is checked after the password and its time step claimed
 * with a compare-and-set, so one code works once.
 */
async function viaPassword(deps: AuthenticationDeps, username: string, password: string, input: AuthenticationInput): Promise<Authentication> {
  if (password === '') throw invalid(); // nothing was guessed: no argon2, no throttle entry
  const now = (deps.now ?? Date.now)();
  const decision = await deps.throttle.check(username, input.ip, now);
  if (!decision.allowed) throw new TooManyRequestsError(TOO_MANY_LOGIN_ATTEMPTS_MESSAGE, decision.retryAfterSeconds);
  const gates = deps.passwordChecksInFlight;
  if (!gates) return checkPassword(deps, username, password, input, now);
  const key = username.toLowerCase();
  // Parallel guesses must not all be checked before the throttle counts them, so checks for one
  // account run at most a few at a time; the others wait their turn (a bounded queue), and the
  // throttle is consulted again when their turn comes.
  await acquireGate(gates, key);
  try {
    // The time of this turn, not of arrival: failures are counted in the order they are checked.
    const turn = (deps.now ?? Date.now)();
    const again = await deps.throttle.check(username, input.ip, turn);
    if (!again.allowed) throw new TooManyRequestsError(TOO_MANY_LOGIN_ATTEMPTS_MESSAGE, again.retryAfterSeconds);
    return await checkPassword(deps, username, password, input, turn);
  } finally {
    releaseGate(gates, key);
  }
}

/** More waiting than this for one account answers 429 instead of queueing without bound. */
export const MAX_WAITING_PASSWORD_CHECKS = 256;

export interface PasswordGate {
  running: number;
  waiting: Array<() => void>;
}

async function acquireGate(gates: Map<string, PasswordGate>, key: string): Promise<void> {
  let gate = gates.get(key);
  if (!gate) {
    gate = { running: 0, waiting: [] };
    gates.set(key, gate);
  }
  if (gate.running < MAX_CONCURRENT_PASSWORD_CHECKS) {
    gate.running++;
    return;
  }
  if (gate.waiting.length >= MAX_WAITING_PASSWORD_CHECKS) throw new TooManyRequestsError(TOO_MANY_LOGIN_ATTEMPTS_MESSAGE, 1);
  await new Promise<void>((resolve) => gate!.waiting.push(resolve));
}

function releaseGate(gates: Map<string, PasswordGate>, key: string): void {
  const gate = gates.get(key);
  if (!gate) return;
  const next = gate.waiting.shift();
  if (next) {
    next(); // the slot passes straight to the next waiter
    return;
  }
  gate.running--;
  if (gate.running <= 0) gates.delete(key);
}

async function checkPassword(deps: AuthenticationDeps, username: string, password: string, input: AuthenticationInput, now: number): Promise<Authentication> {
  const fail = async (message?: string): Promise<never> => {
    await deps.throttle.recordFailure(username, input.ip, now);
    throw new UnauthorizedError(message);
  };

  const user = username.length <= 255 ? await usersStore(deps.db).byName(username) : undefined;
  if (!user || user.type !== USER_TYPE.user) {
    await verifyAgainstNothing(password);
    return fail();
  }
  if (!(await verifyPassword(user.passwd_hash, password))) return fail();

  if (user.totp_secret) {
    const secret = openSecret(user.totp_secret, deps.secretKey);
    // The server key changed or the row is corrupt: a fault to see in the logs, not a wrong code.
    if (secret === null) throw new Error(`the TOTP secret of user ${user.id} cannot be opened with the server key`);
    const result = verifyTotp(secret, input.otp, { now, lastUsedStep: user.totp_last_step });
    if (!result.ok || !(await twoFactorStore(deps.db).claimStep(user.id, result.step))) return fail(INVALID_OTP_MESSAGE);
    user.totp_last_step = result.step;
  }

  await deps.throttle.recordSuccess(username);
  if (needsRehash(user.passwd_hash)) {
    // Parameters were raised since this hash was made; the plaintext is at hand only now.
    const passwd_hash = await hashPassword(password);
    await usersStore(deps.db).update(user.id, { passwd_hash });
    user.passwd_hash = passwd_hash;
  }
  return { user, method: 'password', scopes: null, tokenId: null };
}

/** Resolves parsed credentials; throws 401 (invalid), 403 (unreadable token scope) or 429 (throttled). */
export async function authenticateCredentials(deps: AuthenticationDeps, creds: Credentials, input: AuthenticationInput): Promise<Authentication> {
  switch (creds.kind) {
    case 'none':
      return ANONYMOUS;
    case 'invalid':
      throw invalid();
    case 'token': {
      const found = await viaPersonalToken(deps, creds.value);
      if (!found) throw invalid();
      return found;
    }
    case 'bearer': {
      const found = await viaOAuth2(deps, creds.value);
      if (!found) throw invalid();
      return found;
    }
    case 'basic': {
      // Gitea tries the token reading of a Basic credential first; a token never needs an OTP.
      const candidate = basicTokenCandidate(creds.username, creds.password);
      if (candidate) {
        const viaToken = candidate.kind === 'token' ? await viaPersonalToken(deps, candidate.token) : await viaOAuth2(deps, candidate.token);
        if (viaToken) return viaToken;
        if (!candidate.passwordLoginPossible) throw invalid();
      }
      return viaPassword(deps, creds.username, creds.password, input);
    }
  }
}

/** Parses and resolves in one call (the benchmark and non-HTTP callers use this). */
export async function authenticateRequest(
  deps: AuthenticationDeps,
  request: CredentialInput & AuthenticationInput,
): Promise<Authentication> {
  return authenticateCredentials(deps, parseCredentials(request), request);
}

/**
 * Gitea's checks on every signed-in request (verifyAuthWithOptions), on the account that signed in.
 * `gitClient`: git over HTTP (a `git/...` user agent outside the API), which Gitea answers 401.
 */
export function assertAccountUsable(user: UserRow, appUrl: string, gitClient = false): void {
  // Without e-mail confirmation (Gitea's default) an inactive account gets the "prohibited" text.
  if (!user.is_active || user.prohibit_login) throw new ForbiddenError(LOGIN_PROHIBITED_MESSAGE);
  if (user.must_change_password) {
    if (gitClient) throw new UnauthorizedError(MUST_CHANGE_PASSWORD_GIT_MESSAGE);
    throw new ForbiddenError(mustChangePasswordMessage(appUrl));
  }
}

/**
 * Sudo: a site administrator acts as `name`. Anyone else gets Gitea's 403; an unknown account 404.
 * Organizations cannot be impersonated (they never act), so they count as unknown.
 */
export async function resolveSudo(db: Knex, actual: UserRow | null, name: string): Promise<UserRow> {
  if (!actual || !actual.is_admin) throw new ForbiddenError(SUDO_NOT_ALLOWED_MESSAGE);
  const target = await usersStore(db).byName(name);
  if (!target || target.type !== USER_TYPE.user) throw new NotFoundError();
  return target;
}
