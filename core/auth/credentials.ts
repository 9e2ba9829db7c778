// Turns the raw Authorization header and query parameters into one typed credential, following
// Gitea's services/auth/oauth2.go (parseToken), services/auth/basic.go and
// modules/auth/httpauth. Everything here is hostile input: nothing throws, everything is capped.
import { looksLikeToken } from './tokens.js';

export type CredentialSource = 'header' | 'query';

export type InvalidCredentialReason =
  | 'too-long'
  | 'bad-characters'
  | 'malformed-header'
  | 'unsupported-scheme'
  | 'malformed-basic'
  | 'malformed-token'
  | 'ambiguous-query';

export type Credentials =
  | { kind: 'none' }
  | { kind: 'basic'; username: string; password: string }
  /** A personal access token (40 lowercase hex). */
  | { kind: 'token'; value: string; source: CredentialSource }
  /** A JWT: an OAuth2 access token issued by our provider. */
  | { kind: 'bearer'; value: string; source: CredentialSource }
  | { kind: 'invalid'; reason: InvalidCredentialReason };

export interface CredentialInput {
  authorization?: string | readonly string[] | undefined;
  query?: { token?: unknown; access_token?: unknown } | undefined;
  /** Gitea's `[security] DISABLE_QUERY_AUTH_TOKEN`: when false, ?token= and ?access_token= are ignored. */
  allowQueryTokens?: boolean | undefined;
}

/** Longer than any Basic header or JWT we issue; anything bigger is refused before decoding. */
export const MAX_CREDENTIAL_LENGTH = 4096;

// Visible ASCII plus space and tab. Anything else (CR, LF, NUL, DEL, non-ASCII) is never part of a
// well-formed credential and is a classic header-injection or parser-confusion probe.
const SAFE_HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x1f\x7f]/;

/**
 * Precedence is Gitea's: ?token=, then ?access_token=, then the Authorization header (the OAuth2
 * method, which reads the query first, runs before Basic). The result says where a token came
 * from so the caller can add the deprecation warning header for query tokens.
 *
 * Deliberate difference: Gitea ignores a header it cannot parse (unknown scheme, three fields, bad
 * base64) and carries on anonymously; we return `invalid` so the caller can answer 401 instead of
 * letting a client that believes it is signed in see anonymous results (or 404s for its private
 * repositories). Mapping `invalid` to anonymous reproduces Gitea exactly if that is preferred.
 */
export function parseCredentials(input: CredentialInput): Credentials {
  const query: unknown = input?.query;
  if (input?.allowQueryTokens !== false && typeof query === 'object' && query !== null) {
    for (const name of ['token', 'access_token'] as const) {
      const found = fromQuery((query as Record<string, unknown>)[name]);
      if (found !== null) return found;
    }
  }
  return fromHeader(input?.authorization);
}

function fromQuery(raw: unknown): Credentials | null {
  if (raw === undefined || raw === null || raw === '') return null;
  let value: unknown = raw;
  if (Array.isArray(raw)) {
    // Gitea takes the first of repeated parameters; two different secrets in one URL is more
    // likely a confused client or an injection attempt than intent, so only exact repeats pass.
    const distinct = new Set(raw.filter((v) => v !== ''));
    if (distinct.size === 0) return null;
    if (distinct.size > 1) return { kind: 'invalid', reason: 'ambiguous-query' };
    value = [...distinct][0];
  }
  if (typeof value !== 'string') return { kind: 'invalid', reason: 'malformed-token' };
  return classifyToken(value, 'query');
}

function fromHeader(header: unknown): Credentials {
  if (header === undefined || header === null) return { kind: 'none' };
  let raw = header;
  // Node folds repeated Authorization headers into one string, but be defensive about arrays.
  if (Array.isArray(raw)) {
    if (raw.length === 0) return { kind: 'none' };
    if (raw.length > 1) return { kind: 'invalid', reason: 'malformed-header' };
    raw = raw[0];
  }
  if (typeof raw !== 'string') return { kind: 'invalid', reason: 'malformed-header' };
  if (raw.length > MAX_CREDENTIAL_LENGTH) return { kind: 'invalid', reason: 'too-long' };
  if (!SAFE_HEADER_VALUE.test(raw)) return { kind: 'invalid', reason: 'bad-characters' };
  // Gitea splits with strings.Fields: runs of spaces or tabs separate, leading/trailing are ignored.
  const fields = raw.split(/[ \t]+/).filter((f) => f !== '');
  if (fields.length === 0) return { kind: 'none' };
  if (fields.length !== 2) return { kind: 'invalid', reason: 'malformed-header' };
  const [scheme, value] = fields as [string, string];
  switch (scheme.toLowerCase()) {
    case 'basic':
      return decodeBasic(value);
    case 'token':
    case 'bearer':
      // Gitea treats both schemes alike: a value with '.' is a JWT, otherwise a personal token.
      return classifyToken(value, 'header');
    default:
      return { kind: 'invalid', reason: 'unsupported-scheme' };
  }
}

function classifyToken(value: string, source: CredentialSource): Credentials {
  if (value.length > MAX_CREDENTIAL_LENGTH) return { kind: 'invalid', reason: 'too-long' };
  if (value.includes('.')) {
    return JWT_SHAPE.test(value) ? { kind: 'bearer', value, source } : { kind: 'invalid', reason: 'malformed-token' };
  }
  // Gitea would look anything else up and fail; refusing here saves the lookup and the same 401 follows.
  return looksLikeToken(value) ? { kind: 'token', value, source } : { kind: 'invalid', reason: 'malformed-token' };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decodeBasic(encoded: string): Credentials {
  // Go's StdEncoding is strict (padding required, no stray characters); Buffer.from is not, so check first.
  if (!BASE64.test(encoded)) return { kind: 'invalid', reason: 'malformed-basic' };
  let text: string;
  try {
    text = UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return { kind: 'invalid', reason: 'malformed-basic' };
  }
  const colon = text.indexOf(':');
  if (colon < 0) return { kind: 'invalid', reason: 'malformed-basic' };
  const username = text.slice(0, colon);
  const password = text.slice(colon + 1);
  // No valid username or token contains control characters; a password may (it is opaque bytes to argon2).
  if (CONTROL_CHARS.test(username)) return { kind: 'invalid', reason: 'malformed-basic' };
  return { kind: 'basic', username, password };
}

/** The password GitHub-style clients send when the username field carries the token. */
export const OAUTH_BASIC_PASSWORD = 'x-oauth-basic';

export interface BasicTokenCandidate {
  /** The value to try as a personal token or JWT before attempting a password login. */
  token: string;
  kind: 'token' | 'bearer';
  position: 'username' | 'password';
  /** Whether a password login should still be tried if the token does not resolve (Gitea falls through). */
  passwordLoginPossible: boolean;
}

/**
 * Which part of a Basic credential could be a token, as Gitea decides it: an empty password or
 * `x-oauth-basic` means the username is the token (`<token>:`), otherwise the password is
 * (`<user>:<token>`). Null when that part does not even look like a token, so the caller goes
 * straight to the password check. A token accepted this way never needs an OTP: Gitea only asks for
 * one on the password path.
 */
export function basicTokenCandidate(username: string, password: string): BasicTokenCandidate | null {
  const usernameIsToken = password === '' || password === OAUTH_BASIC_PASSWORD;
  const token = usernameIsToken ? username : password;
  const kind = looksLikeToken(token) ? 'token' : JWT_SHAPE.test(token) && token.length <= MAX_CREDENTIAL_LENGTH ? 'bearer' : null;
  if (kind === null) return null;
  return {
    token,
    kind,
    position: usernameIsToken ? 'username' : 'password',
    passwordLoginPossible: password !== '',
  };
}

/** Header names carrying the TOTP code: Gitea's, and this service's own (both accepted). */
export const OTP_HEADERS = ['x-gitea-otp', 'x-service-otp'] as const;

/**
 * The OTP the client sent, or null when none (or two different ones) was sent. Both null and a
 * wrong code end the same way for a 2FA account: 401 `invalid provided OTP`.
 */
export function otpFromHeaders(headers: Readonly<Record<string, string | readonly string[] | undefined>>): string | null {
  const values = new Set<string>();
  for (const name of OTP_HEADERS) {
    const raw = headers[name];
    const list = raw === undefined ? [] : typeof raw === 'string' ? [raw] : raw;
    for (const v of list) {
      if (typeof v === 'string' && v.trim() !== '') values.add(v.trim());
    }
  }
  if (values.size !== 1) return null;
  const [only] = values;
  return only !== undefined && only.length <= 16 ? only : null;
}
