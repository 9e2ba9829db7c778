// The identity a user's merges and updates are committed as (Gitea's: full name, else the login;
// the account's email, else a noreply address).
import type { Identity } from '../../git/index.js';
import type { UserRow } from '../../db/users.js';

export function gitIdentity(user: UserRow, date?: string): Identity {
  return { name: user.full_name || user.name, email: user.email || `${user.lower_name}@noreply.localhost`, ...(date ? { date } : {}) };
}
