// Commit status rows to Gitea's JSON (services/convert/status.go): the state goes out as `status`
// and `id` is the per-commit index.
import type { StatusRow } from '../../db/statuses.js';
import type { UserRow } from '../../db/users.js';
import { unixToIso } from '../../db/time.js';
import { toApiUser } from './user.js';

export function toApiStatus(s: StatusRow, creator: UserRow | undefined, repoApiUrl: string, viewer: UserRow | null, appUrl: string) {
  const at = unixToIso(s.created_unix)!;
  return {
    id: s.index,
    status: s.state,
    target_url: s.target_url,
    description: s.description,
    url: `${repoApiUrl}/statuses/${s.sha}`,
    context: s.context,
    creator: creator ? toApiUser(creator, viewer, appUrl) : null,
    created_at: at,
    updated_at: at,
  };
}
