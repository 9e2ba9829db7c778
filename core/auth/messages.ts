// Gitea's authentication texts, word for word (gitea-wire §4.2-4.5): clients and their tests match on them.

/** 401: credentials were presented but did not authenticate (latest Gitea wording). */
export const INVALID_CREDENTIALS_MESSAGE = 'invalid username, password or token';
/** 401: the endpoint needs a signed-in user and none was given. */
export const TOKEN_REQUIRED_MESSAGE = 'token is required';
/** 401: token endpoints without Basic (password) authentication. */
export const AUTH_REQUIRED_MESSAGE = 'auth required';
/** 401: 2FA account, Basic password auth, OTP missing, malformed, wrong or replayed. */
export const INVALID_OTP_MESSAGE = 'invalid provided OTP';
/** 401: WebAuthn enrolled without TOTP; Basic password auth cannot satisfy it. */
export const WEBAUTHN_BASIC_MESSAGE = 'basic authorization is not allowed while WebAuthn enrolled';

export const ACCOUNT_NOT_ACTIVE_MESSAGE = 'This account is not activated.';
export const LOGIN_PROHIBITED_MESSAGE =
  'This account is prohibited from signing in, please contact your site administrator.';
export const SIGNIN_REQUIRED_MESSAGE = 'Only signed in user is allowed to call APIs.';
export const SUDO_NOT_ALLOWED_MESSAGE = 'Only administrators allowed to sudo.';
export const TOKEN_OWNER_MISMATCH_MESSAGE = 'doer should be the site admin or be same as the contextUser';
export const TOKEN_NAME_USED_MESSAGE = 'access token name has been used already';

/**
 * 403 text for any signed-in API request while the account must change its password. Gitea joins
 * its AppURL, which ends with '/', and '/user/change_password': the double slash is on the wire.
 */
export function mustChangePasswordMessage(appUrl: string): string {
  return `You must change your password. Change it at: ${appUrl}/user/change_password`;
}

/** 401 text for git over HTTP while the account must change its password (Gitea's auth.must_change_password). */
export const MUST_CHANGE_PASSWORD_GIT_MESSAGE = 'Update your password';

/** `X-Gitea-Warning` value Gitea sends when a token arrived in the query string. */
export const QUERY_TOKEN_WARNING =
  'token and access_token API authentication is deprecated and will be removed in gitea 1.23. Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.';

/** 429 text for throttled password logins. Gitea has no such limiter, so the wording is ours. */
export const TOO_MANY_LOGIN_ATTEMPTS_MESSAGE = 'too many failed login attempts, try again later';
