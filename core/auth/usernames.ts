// Username and e-mail rules as Gitea applies them when a user is created or renamed
// (modules/validation/helpers.go IsValidUsername, models/user/user.go IsUsableUsername,
// models/db/name.go error texts).

/** CreateUserOption binds `MaxSize(40)` on the username. */
export const MAX_USERNAME_LENGTH = 40;

// Gitea's two patterns: start with an ASCII letter or digit, then letters, digits, '-', '_', '.';
// and no two special characters in a row, and none at the end. JS `\w` without the `u` flag is
// ASCII-only, like Go's, and `$` without `m` matches only at the very end, like Go's.
const VALID_USERNAME = /^[\da-zA-Z][-.\w]*$/;
const INVALID_USERNAME = /[-._]{2,}|[-._]$/;

/**
 * Names reserved on latest Gitea main because they collide with top-level web routes. Older
 * releases reserved more (`admin`, `new`, `raw`, `search`, …); latest main dropped them so that,
 * for example, a first account called `admin` can be created, and we follow latest main.
 * `.`, `..` and `.well-known` can never pass the character rules; they stay for fidelity.
 */
export const RESERVED_USERNAMES: readonly string[] = [
  '.',
  '..',
  '.well-known',
  'api',
  'metrics',
  'v2',
  'assets',
  'attachments',
  'avatar',
  'avatars',
  'repo-avatars',
  'captcha',
  'login',
  'org',
  'repo',
  'user',
  'explore',
  'issues',
  'pulls',
  'milestones',
  'notifications',
  'favicon.ico',
  'manifest.json',
  'robots.txt',
  'sitemap.xml',
  'ssh_info',
  'swagger.v1.json',
  'ghost',
  'gitea-actions',
];

/** `/{username}.keys` etc. are served by the user route, so names ending like that are refused. */
export const RESERVED_USERNAME_PATTERNS: readonly string[] = ['*.keys', '*.gpg', '*.rss', '*.atom', '*.png'];

const RESERVED_SET: ReadonlySet<string> = new Set(RESERVED_USERNAMES);

/** Character and length rules only (Gitea's IsValidUsername plus the 40-character bound). */
export function isValidUsername(name: unknown): boolean {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= MAX_USERNAME_LENGTH &&
    VALID_USERNAME.test(name) &&
    !INVALID_USERNAME.test(name)
  );
}

export type UsernameProblem =
  | { kind: 'ErrNameEmpty'; message: string }
  | { kind: 'ErrNameTooLong'; message: string }
  | { kind: 'ErrNameCharsNotAllowed'; message: string }
  | { kind: 'ErrNameReserved'; message: string }
  | { kind: 'ErrNamePatternNotAllowed'; message: string };

/**
 * Null when `name` can be registered; otherwise Gitea's error kind and text. Checks run in Gitea's
 * order: characters first, then reserved names (compared lower-cased), then reserved patterns.
 * Gitea reports the length limit through its form binding, not with a text of its own, so the
 * `ErrNameTooLong` message here is ours.
 */
export function usernameProblem(name: unknown): UsernameProblem | null {
  if (typeof name !== 'string' || name.length === 0) {
    return { kind: 'ErrNameEmpty', message: 'name is empty' };
  }
  if (name.length > MAX_USERNAME_LENGTH) {
    return { kind: 'ErrNameTooLong', message: `name is too long [max: ${MAX_USERNAME_LENGTH}]` };
  }
  if (!isValidUsername(name)) {
    return {
      kind: 'ErrNameCharsNotAllowed',
      // The name is echoed as given; it has passed the length cap, and the route's JSON encoder escapes it.
      message: `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`,
    };
  }
  const lower = usernameKey(name);
  if (RESERVED_SET.has(lower)) {
    return { kind: 'ErrNameReserved', message: `name is reserved [name: ${lower}]` };
  }
  for (const pattern of RESERVED_USERNAME_PATTERNS) {
    const suffix = pattern.startsWith('*') ? pattern.slice(1) : null;
    const prefix = pattern.endsWith('*') ? pattern.slice(0, -1) : null;
    if ((suffix !== null && lower.endsWith(suffix)) || (prefix !== null && lower.startsWith(prefix))) {
      return { kind: 'ErrNamePatternNotAllowed', message: `name pattern is not allowed [pattern: ${pattern}]` };
    }
  }
  return null;
}

/**
 * The uniqueness key (Gitea's `lower_name`). Usernames are ASCII by the rules above, so plain
 * lower-casing is exact; the unique index belongs on this value, never on the display name.
 */
export function usernameKey(name: string): string {
  return name.toLowerCase();
}

/** RFC 5321's path limit; Gitea's database column allows 255 but no deliverable address is longer. */
export const MAX_EMAIL_LENGTH = 254;

// Local part: RFC 5322 dot-atom (what Go's net/mail accepts unquoted); no quoted strings, no comments.
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
// Domain: Gitea's host-name pattern plus its "no leading/trailing '-' or '.'" rule, and no empty labels.
const DOMAIN_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * A deliberately simple address check in the spirit of Gitea's IsEmailAddressValid: ASCII only,
 * `local@domain`, a dot-atom local part not starting with '-', and a host name. Quoted local parts
 * and IP-literal domains are refused; neither is worth the parsing risk for account e-mail.
 */
export function isValidEmail(email: unknown): boolean {
  if (typeof email !== 'string' || email.length === 0 || email.length > MAX_EMAIL_LENGTH) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || local.startsWith('-')) return false;
  return LOCAL_ATOM.test(local) && DOMAIN_NAME.test(domain);
}
