// Account rows to Gitea's User JSON (services/convert/user.go ToUser).
//
// For other modules: `toApiUser(user, viewer, appUrl)` is synchronous and does no I/O; call it for
// every user you put in a response (owners, authors, assignees...). `viewer` is the request's doer
// (null when anonymous): it decides whether private fields and the real e-mail are shown.
import type { UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { avatarHash } from '../avatars.js';

/** The JSON Gitea sends; key order is Gitea's (the response schema keeps it). */
export interface ApiUser {
  id: number;
  login: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: string;
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
  /** Gitea's compatibility alias of `login` (added by its MarshalJSON). */
  username: string;
}

/** Go's zero time.Time, which Gitea prints for hidden `last_login`. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

interface UrlParts {
  noReplyDomain: string;
}

// Parsing APP_URL on every call would cost more than the rest of the conversion; there is one per process.
const urlCache = new Map<string, UrlParts>();

function urlParts(appUrl: string): UrlParts {
  let parts = urlCache.get(appUrl);
  if (!parts) {
    // Gitea's default NO_REPLY_ADDRESS is `noreply.` + DOMAIN (the host name without the port).
    let host = 'localhost';
    try {
      host = new URL(appUrl).hostname || host;
    } catch {
      // An invalid APP_URL is refused at start-up; keep the default for callers outside the app.
    }
    parts = { noReplyDomain: `noreply.${host}` };
    if (urlCache.size > 16) urlCache.clear();
    urlCache.set(appUrl, parts);
  }
  return parts;
}

/** Whether `viewer` may see the private fields of `user`: the user themself or a site admin. */
export function isSelfOrAdmin(user: UserRow, viewer: UserRow | null): boolean {
  return viewer !== null && (viewer.id === user.id || viewer.is_admin);
}

/** Gitea's generated avatar (Gravatar off): served by api/routes/avatars.ts. */
export function avatarUrlOf(account: Pick<UserRow, 'email' | 'name'>, appUrl: string): string {
  return `${appUrl}avatars/${avatarHash(account)}`;
}

export function htmlUrlOf(user: Pick<UserRow, 'name'>, appUrl: string): string {
  return `${appUrl}${encodeURIComponent(user.name)}`;
}

export function toApiUser(user: UserRow, viewer: UserRow | null, appUrl: string): ApiUser {
  const parts = urlParts(appUrl);
  const signed = viewer !== null;
  const authed = isSelfOrAdmin(user, viewer);
  // Anonymous callers never see an address; signed-in ones see it unless the user keeps it private.
  const email = signed && (!user.keep_email_private || authed) ? user.email : `${user.lower_name}@${parts.noReplyDomain}`;
  return {
    id: user.id,
    login: user.name,
    // Only site admins and the user themself see the login name (Gitea's ToUser).
    login_name: authed ? user.login_name ?? '' : '',
    source_id: 0,
    full_name: user.full_name,
    email,
    avatar_url: avatarUrlOf(user, appUrl),
    html_url: htmlUrlOf(user, appUrl),
    language: authed ? user.language ?? '' : '',
    is_admin: authed ? user.is_admin : false,
    // Gitea turns a zero unix stamp into 1970-01-01 for admins/self and leaves Go's zero time otherwise.
    last_login: authed ? unixToIso(user.last_login_unix ?? 0)! : ZERO_TIME,
    created: unixToIso(user.created_unix)!,
    restricted: user.restricted,
    active: authed ? user.is_active : false,
    prohibit_login: authed ? user.prohibit_login : false,
    location: user.location,
    website: user.website,
    description: user.description,
    visibility: user.visibility,
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: user.name,
  };
}
