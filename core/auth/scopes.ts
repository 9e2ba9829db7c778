// Access-token scopes with Gitea's names, normalisation and enforcement rules
// (models/auth/access_token_scope.go, routers/api/v1/api.go tokenRequiresScopes).

/** Gitea's category order. Normalised output follows it, so stored strings compare equal across servers. */
export const SCOPE_CATEGORIES = [
  'activitypub',
  'admin',
  'misc',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
] as const;

export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];
export type ScopeLevel = 'read' | 'write';
export type AccessTokenScope = 'all' | 'public-only' | `${ScopeLevel}:${ScopeCategory}`;

/** Every scope string Gitea accepts, in the order its UI lists them. */
export const ALL_SCOPES: readonly AccessTokenScope[] = [
  'all',
  'public-only',
  ...SCOPE_CATEGORIES.flatMap((c) => [`read:${c}`, `write:${c}`] as AccessTokenScope[]),
];

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES);

export const NO_SCOPE_MESSAGE = 'access token must have a scope';

/**
 * A scope list that cannot be accepted. `status` is what the API answers at token creation (400).
 * The message is Gitea's, word for word, because clients match on it.
 */
export class AccessTokenScopeError extends Error {
  readonly status = 400;
  constructor(
    readonly kind: 'invalid-scope' | 'no-scope',
    /** The offending entry for 'invalid-scope'. */
    readonly scope: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'AccessTokenScopeError';
  }
}

/** Gitea's inner error text for an unknown scope (also used when a stored scope fails to parse). */
export function invalidScopeText(scope: string): string {
  return `invalid access token scope: ${scope}`;
}

export function isAccessTokenScope(value: string): value is AccessTokenScope {
  return KNOWN_SCOPES.has(value);
}

// Hostile bodies could send a huge array or string; no legitimate list comes near these.
const MAX_SCOPE_INPUT_CHARS = 4096;
const MAX_SCOPE_ENTRIES = 256;

/**
 * Parses scopes from a CreateAccessTokenOption (`string[]`) or a comma-separated string, and
 * returns them normalised. Gitea joins the array with ',' and splits again, so an entry holding
 * commas is several scopes there too; empty entries are skipped. Unlike Gitea, entries are trimmed
 * (" read:user" is accepted) because a stray space is never a different scope.
 * Throws AccessTokenScopeError: unknown entry, or nothing left after normalisation.
 */
export function parseScopes(input: readonly string[] | string): AccessTokenScope[] {
  // A body without `scopes` (null/undefined) is Gitea's empty join: "must have a scope".
  if (input === undefined || input === null) throw new AccessTokenScopeError('no-scope', null, NO_SCOPE_MESSAGE);
  const raw: readonly unknown[] = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [input];
  if (raw.length > MAX_SCOPE_ENTRIES) {
    throw new AccessTokenScopeError('invalid-scope', null, 'invalid access token scope provided: too many scopes');
  }
  const found: AccessTokenScope[] = [];
  let total = 0;
  for (const item of raw) {
    if (typeof item !== 'string') {
      throw invalidProvided(String(item));
    }
    total += item.length;
    if (total > MAX_SCOPE_INPUT_CHARS) {
      throw new AccessTokenScopeError('invalid-scope', null, 'invalid access token scope provided: too many scopes');
    }
    for (const part of item.split(',')) {
      const scope = part.trim();
      if (scope === '') continue;
      if (!isAccessTokenScope(scope)) throw invalidProvided(scope);
      found.push(scope);
    }
  }
  const normalised = normalizeScopes(found);
  if (normalised.length === 0) {
    throw new AccessTokenScopeError('no-scope', null, NO_SCOPE_MESSAGE);
  }
  return normalised;
}

function invalidProvided(scope: string): AccessTokenScopeError {
  return new AccessTokenScopeError(
    'invalid-scope',
    scope,
    `invalid access token scope provided: ${invalidScopeText(scope)}`,
  );
}

type Levels = { publicOnly: boolean; level: Map<ScopeCategory, 1 | 2> };

function levelsOf(scopes: readonly AccessTokenScope[]): Levels {
  const out: Levels = { publicOnly: false, level: new Map() };
  for (const scope of scopes) {
    if (scope === 'public-only') {
      out.publicOnly = true;
    } else if (scope === 'all') {
      for (const c of SCOPE_CATEGORIES) out.level.set(c, 2);
    } else {
      const [lvl, cat] = scope.split(':') as [ScopeLevel, ScopeCategory];
      const n = lvl === 'write' ? 2 : 1;
      if ((out.level.get(cat) ?? 0) < n) out.level.set(cat, n);
    }
  }
  return out;
}

/**
 * Gitea's Normalize: duplicates removed, write implies read (so `read:x` next to `write:x` goes),
 * `public-only` first, then categories in fixed order, and the full set of write scopes becomes
 * `all`. Examples from Gitea's tests:
 *   "write:misc,write:notification,read:package,write:notification,public-only"
 *     → "public-only,write:misc,write:notification,read:package"
 *   all nine write scopes (+ public-only) → "all" ("public-only,all")
 */
export function normalizeScopes(scopes: readonly AccessTokenScope[]): AccessTokenScope[] {
  const { publicOnly, level } = levelsOf(scopes);
  const out: AccessTokenScope[] = publicOnly ? ['public-only'] : [];
  if (SCOPE_CATEGORIES.every((c) => level.get(c) === 2)) {
    out.push('all');
    return out;
  }
  for (const c of SCOPE_CATEGORIES) {
    const n = level.get(c);
    if (n === 2) out.push(`write:${c}`);
    else if (n === 1) out.push(`read:${c}`);
  }
  return out;
}

/** Storage form: Gitea's `scope` column, comma-joined, no spaces. */
export function scopesToString(scopes: readonly AccessTokenScope[]): string {
  return scopes.join(',');
}

/**
 * Reads a stored scope column. An unknown entry (a row written by a newer version, or corruption)
 * throws AccessTokenScopeError with Gitea's inner text; at request time Gitea answers it with
 * 403 `checking scope failed: <text>`, so the caller must not treat it as "no restriction".
 */
export function scopesFromString(stored: string): AccessTokenScope[] {
  const out: AccessTokenScope[] = [];
  for (const part of stored.split(',')) {
    if (part === '') continue;
    if (!isAccessTokenScope(part)) {
      throw new AccessTokenScopeError('invalid-scope', part, invalidScopeText(part));
    }
    out.push(part);
  }
  return out;
}

/** True when the scopes grant `level` on `category` (write implies read; `all` grants everything). */
export function hasScope(scopes: readonly AccessTokenScope[], level: ScopeLevel, category: ScopeCategory): boolean {
  const have = levelsOf(scopes).level.get(category) ?? 0;
  return have >= (level === 'write' ? 2 : 1);
}

/** `public-only` restricts the token to public repositories, orgs, users, issues, packages. */
export function isPublicOnly(scopes: readonly AccessTokenScope[]): boolean {
  return scopes.includes('public-only');
}

/**
 * Read for GET and HEAD, write for everything else. Gitea treats only POST/PUT/PATCH/DELETE as
 * writes and any other method as a read; we fail closed so an unexpected method can never slip
 * through on a read-only token.
 */
export function requiredLevelForMethod(method: string): ScopeLevel {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' ? 'read' : 'write';
}

/**
 * Gitea's 403 text. `required` is printed the way Go prints a slice (`[a b]`), the token's scope the
 * way it is stored (comma-joined), e.g.
 * `token does not have at least one of required scope(s), required=[read:repository], token scope=write:issue`.
 */
export function scopeDeniedMessage(
  required: readonly AccessTokenScope[],
  tokenScopes: readonly AccessTokenScope[],
): string {
  return `token does not have at least one of required scope(s), required=[${required.join(' ')}], token scope=${scopesToString(tokenScopes)}`;
}

export type ScopeCheck = { allowed: true; publicOnly: boolean } | { allowed: false; message: string };

/**
 * The per-route check: a route declares its categories; the method picks the level. Like Gitea the
 * token needs every listed category (despite the message saying "at least one"), and a route with
 * no categories accepts any token. `publicOnly` tells the caller to hide private resources.
 */
export function checkTokenScopes(
  tokenScopes: readonly AccessTokenScope[],
  method: string,
  categories: readonly ScopeCategory[],
): ScopeCheck {
  if (categories.length === 0) return { allowed: true, publicOnly: isPublicOnly(tokenScopes) };
  const level = requiredLevelForMethod(method);
  const required = categories.map((c) => `${level}:${c}` as AccessTokenScope);
  if (!categories.every((c) => hasScope(tokenScopes, level, c))) {
    return { allowed: false, message: scopeDeniedMessage(required, tokenScopes) };
  }
  return { allowed: true, publicOnly: isPublicOnly(tokenScopes) };
}

export type PublicOnlyResource = 'repos' | 'orgs' | 'users' | 'issues' | 'notifications' | 'packages';

/** 403 text when a public-only token reaches a private resource. */
export function publicOnlyDeniedMessage(resource: PublicOnlyResource): string {
  return `token scope is limited to public ${resource}`;
}

export const PUBLIC_ONLY_ENDPOINT_MESSAGE = 'this endpoint is not available for public-only tokens';

// OIDC scopes describe identity claims, not API rights; Gitea ignores them for authorisation.
const OIDC_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'groups']);

/**
 * API scopes of an OAuth2 grant (space-separated `scope` of the grant). As in Gitea since 1.22:
 * no Gitea scopes requested means `all`; a list with an unknown entry also means `all`, because
 * Gitea keeps that behaviour so existing OAuth clients (which may send other forges' scope names)
 * keep working. Narrowing only happens when every extra scope is a Gitea scope.
 */
export function scopesFromOAuthGrant(grantScope: string): AccessTokenScope[] {
  const extra = grantScope.split(' ').filter((s) => s !== '' && !OIDC_SCOPES.has(s));
  if (extra.length > 0 && extra.every(isAccessTokenScope)) {
    const normalised = normalizeScopes(extra);
    if (normalised.length > 0) return normalised;
  }
  return ['all'];
}
