// Personal access tokens: creation, listing, deletion, and resolving a presented value to its
// owner (Gitea's models/auth/access_token.go and routers/api/v1/user/app.go rules).
import { accountsGeneration } from '../db/users.js';
import type { Knex } from 'knex';
import { BadRequestError, NotFoundError, UnprocessableError } from './errors.js';
import { TOKEN_NAME_USED_MESSAGE } from './auth/messages.js';
import { AccessTokenScopeError, parseScopes, scopesFromString, scopesToString, type AccessTokenScope } from './auth/scopes.js';
import { generateTokenValue, hashToken, looksLikeToken, safeEqualHex, tokenLastEight } from './auth/tokens.js';
import { isUniqueViolation } from '../db/connection.js';
import { tokensStore, type AccessTokenRow, type TokenWithOwner } from '../db/tokens.js';

/** `last used` is written at most this often per token, so token use does not cost a write per request. */
export const TOKEN_TOUCH_INTERVAL_SECONDS = 60;

export interface CreatedAccessToken {
  row: AccessTokenRow;
  /** The plaintext value: returned to the client once (`sha1`), never stored. */
  value: string;
  scopes: AccessTokenScope[];
}

/** Gitea's order of checks: the name first, then the scopes (unknown scope, then no scope). */
export async function createAccessToken(
  db: Knex,
  serverKey: Buffer,
  userId: number,
  input: { name: string; scopes?: readonly string[] | undefined },
): Promise<CreatedAccessToken> {
  // Gitea's binding marks the name Required, which refuses "" as well as a missing field.
  if (input.name === '') throw new UnprocessableError('[name]: Required');
  const store = tokensStore(db);
  if (await store.nameExists(userId, input.name)) throw new BadRequestError(TOKEN_NAME_USED_MESSAGE);
  let scopes: AccessTokenScope[];
  try {
    scopes = parseScopes((input.scopes ?? undefined) as readonly string[]);
  } catch (err) {
    if (err instanceof AccessTokenScopeError) throw new BadRequestError(err.message);
    throw err;
  }
  const value = generateTokenValue();
  try {
    const row = await store.insert({
      user_id: userId,
      name: input.name,
      token_hash: hashToken(value, serverKey),
      token_last_eight: tokenLastEight(value),
      scope: scopesToString(scopes),
    });
    return { row, value, scopes };
  } catch (err) {
    // Two concurrent creations with one name: the unique index decides.
    if (isUniqueViolation(err)) throw new BadRequestError(TOKEN_NAME_USED_MESSAGE);
    throw err;
  }
}

export async function listAccessTokens(db: Knex, userId: number, limit: number, offset: number): Promise<{ rows: AccessTokenRow[]; total: number }> {
  const store = tokensStore(db);
  const [rows, total] = await Promise.all([store.listByUser(userId, limit, offset), store.countByUser(userId)]);
  return { rows, total };
}

/**
 * Go's strconv.ParseInt(s, 0, 64) as Gitea's delete handler uses it: decimal, 0x/0o/0b prefixes,
 * a leading 0 for octal, underscores between digits with a prefix. Anything else (or 0) means "a name".
 */
export function parseTokenId(s: string): number {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return 0;
  const [, sign, body] = m as unknown as [string, string, string];
  if (body.includes('_') && (!/^0[xXoObB]?/.test(body) || /__|_$/.test(body))) return 0;
  const digits = body.replace(/_/g, '');
  let n: number;
  if (/^0[xX]/.test(digits)) n = parseInt(digits.slice(2), 16);
  else if (/^0[oO]/.test(digits)) n = parseInt(digits.slice(2), 8);
  else if (/^0[bB]/.test(digits)) n = parseInt(digits.slice(2), 2);
  else if (digits.length > 1 && digits.startsWith('0')) n = parseInt(digits.slice(1), 8);
  else n = parseInt(digits, 10);
  if (!Number.isSafeInteger(n)) return 0;
  return sign === '-' ? -n : n;
}

/** DELETE by id, or by name when the segment is not a (non-zero) integer. */
export async function deleteAccessToken(db: Knex, userId: number, idOrName: string): Promise<void> {
  const store = tokensStore(db);
  let id = parseTokenId(idOrName);
  if (id === 0) {
    const matches = await store.byName(userId, idOrName);
    if (matches.length === 0) throw new NotFoundError();
    if (matches.length > 1) throw new UnprocessableError(`multiple matches for token name '${idOrName}'`);
    id = matches[0]!.id;
  }
  if (!(await store.deleteOwned(id, userId))) throw new NotFoundError();
  forgetResolvedToken(id);
}

export interface ResolvedToken extends TokenWithOwner {
  scopes: AccessTokenScope[];
}

// Parsing the stored scope string is the only per-request work left after the lookup; the set of
// distinct scope strings is tiny, so remember the parses.
const scopeCache = new Map<string, AccessTokenScope[]>();

function cachedScopes(stored: string): AccessTokenScope[] {
  let scopes = scopeCache.get(stored);
  if (!scopes) {
    scopes = scopesFromString(stored); // throws for an unknown stored scope; never cached then
    if (scopeCache.size > 1000) scopeCache.clear();
    scopeCache.set(stored, scopes);
  }
  return scopes;
}

/**
 * The token and its owner for a presented value, or null. One HMAC and one indexed lookup; the
 * stored hash is compared again in constant time so correctness never rests on the database's
 * string comparison. A stored scope that no longer parses throws AccessTokenScopeError.
 */
// Successful lookups are remembered for a few seconds, as Gitea caches them: a busy client's token
// then costs one HMAC and a map read instead of a database round trip. Deleting a token forgets it
// at once in this process; other API processes notice within RESOLVED_TOKEN_TTL_MS, and so do
// changes to the owner (deactivation, prohibited login).
export const RESOLVED_TOKEN_TTL_MS = 5000;
const MAX_RESOLVED_TOKENS = 10_000;
const resolvedTokens = new Map<string, { value: ResolvedToken; expires: number; generation: number }>();

export function forgetResolvedToken(tokenId: number): void {
  for (const [hash, entry] of resolvedTokens) if (entry.value.token.id === tokenId) resolvedTokens.delete(hash);
}

export async function resolveAccessToken(db: Knex, serverKey: Buffer, value: string): Promise<ResolvedToken | null> {
  if (!looksLikeToken(value)) return null;
  const hash = hashToken(value, serverKey);
  const now = Date.now();
  const cached = resolvedTokens.get(hash);
  if (cached && cached.expires > now && cached.generation === accountsGeneration()) return cached.value;
  const found = await tokensStore(db).byHashWithOwner(hash);
  if (!found || !safeEqualHex(found.token.token_hash, hash)) {
    resolvedTokens.delete(hash);
    return null;
  }
  const resolved = { ...found, scopes: cachedScopes(found.token.scope) };
  if (resolvedTokens.size >= MAX_RESOLVED_TOKENS) resolvedTokens.delete(resolvedTokens.keys().next().value!);
  resolvedTokens.set(hash, { value: resolved, expires: now + RESOLVED_TOKEN_TTL_MS, generation: accountsGeneration() });
  return resolved;
}

/** Whether the token's `last used` stamp is old enough to be written again. */
export function tokenUseIsStale(token: AccessTokenRow, nowSeconds: number): boolean {
  return nowSeconds - token.updated_unix >= TOKEN_TOUCH_INTERVAL_SECONDS;
}

/** Refreshes `last used` (call only when tokenUseIsStale); the store's condition keeps it to one write per interval. */
export async function touchAccessToken(db: Knex, token: AccessTokenRow, nowSeconds: number): Promise<void> {
  await tokensStore(db).touch(token.id, nowSeconds, TOKEN_TOUCH_INTERVAL_SECONDS);
}
