// The reads every repository route starts with, one round trip each: the repository with its owner
// by their names, and for pull request routes the pull request, its issue and what its record
// shows beside them (label and assignee ids, queue entry, poster and merger) in the same row. They
// run straight through the driver (db/hot-query.ts): on a single pull request these reads were
// three to four knex queries of a request's nine.
import type { Knex } from 'knex';
import { selectFirstRowByTable, type RowsByTable } from './hot-query.js';
import { toIssueRow, type IssueRow } from './issues.js';
import { toPullRow, type PullRow } from './pulls.js';
import { toRepoRow, type RepoRow } from './repos.js';
import { toUserRow, type UserRow } from './users.js';

export interface RepoWithOwner {
  repo: RepoRow;
  owner: UserRow;
}

export interface RepoWithPull extends RepoWithOwner {
  /** Absent when the repository has no pull request of that index. */
  pull?: PullRow;
  issue?: IssueRow;
  /** What the pull request's record shows beside its rows, read in the same round trip. */
  extras?: PullRecordExtras;
}

export interface PullRecordExtras {
  labelIds: number[];
  assigneeIds: number[];
  /** Its merge_queue_entries row while it is queued. */
  queueEntry: Record<string, unknown> | null;
  /** Whether it has any review row: without one it has no requested reviewers to read. */
  hasReviews: boolean;
  /** Its poster's and merger's accounts, those that exist. */
  users: UserRow[];
}

const REPO_WITH_OWNER_SQL = 'SELECT repositories.*, users.* FROM repositories JOIN users ON users.id = repositories.owner_id '
  + 'WHERE users.lower_name = ? AND repositories.lower_name = ?';

// Label and assignee ids come as comma-separated lists (GROUP_CONCAT: MariaDB, MySQL and SQLite).
const REPO_WITH_PULL_SQL = 'SELECT repositories.*, users.*, pull_requests.*, issues.*, merge_queue_entries.*, posters.*, mergers.*, '
  + '(SELECT GROUP_CONCAT(label_id) FROM issue_labels WHERE issue_labels.issue_id = issues.id) AS label_ids, '
  + '(SELECT GROUP_CONCAT(assignee_id) FROM issue_assignees WHERE issue_assignees.issue_id = issues.id) AS assignee_ids, '
  + 'EXISTS (SELECT 1 FROM reviews WHERE reviews.issue_id = issues.id) AS has_reviews '
  + 'FROM repositories JOIN users ON users.id = repositories.owner_id '
  + 'LEFT JOIN pull_requests ON pull_requests.base_repo_id = repositories.id AND pull_requests.`index` = ? '
  + 'LEFT JOIN issues ON issues.id = pull_requests.issue_id '
  + 'LEFT JOIN merge_queue_entries ON merge_queue_entries.pull_id = pull_requests.id '
  + 'LEFT JOIN users AS posters ON posters.id = issues.poster_id '
  + 'LEFT JOIN users AS mergers ON mergers.id = pull_requests.merger_id '
  + 'WHERE users.lower_name = ? AND repositories.lower_name = ?';

const PULL_BY_KEY_SQL = 'SELECT repositories.*, users.*, pull_requests.*, issues.* FROM repositories JOIN users ON users.id = repositories.owner_id '
  + 'LEFT JOIN pull_requests ON pull_requests.base_repo_id = repositories.id AND pull_requests.`index` = ? '
  + 'LEFT JOIN issues ON issues.id = pull_requests.issue_id '
  + 'WHERE repositories.id = ?';

/** Ids from a GROUP_CONCAT list (NULL when there are none), ascending as the stores order them. */
function idList(value: unknown): number[] {
  if (value === null || value === undefined || value === '') return [];
  return String(value).split(',').map(Number).sort((a, b) => a - b);
}

export async function repoWithOwnerByNames(db: Knex, ownerName: string, repoName: string): Promise<RepoWithOwner | undefined> {
  const row = await selectFirstRowByTable(db, REPO_WITH_OWNER_SQL, [ownerName.toLowerCase(), repoName.toLowerCase()]);
  return row ? { repo: toRepoRow(row.repositories)!, owner: toUserRow(row.users)! } : undefined;
}

/** The repository, its owner, and its pull request and that pull request's issue when the row has them. */
function withPullRows(row: RowsByTable): RepoWithPull {
  const found: RepoWithPull = { repo: toRepoRow(row.repositories)!, owner: toUserRow(row.users)! };
  // A LEFT JOIN without a match gives the pull request's and issue's columns as NULL.
  if (row.pull_requests?.id != null && row.issues?.id != null) {
    found.pull = toPullRow(row.pull_requests);
    found.issue = toIssueRow(row.issues);
  }
  return found;
}

/**
 * The repository known by id, its owner, and its pull request `index` with that pull request's
 * issue: what every operation on a pull request starts from (core/pulls/operation-context.ts).
 */
export async function repoWithPullById(db: Knex, repoId: number, index: number): Promise<RepoWithPull | undefined> {
  const row = await selectFirstRowByTable(db, PULL_BY_KEY_SQL, [index, repoId]);
  return row ? withPullRows(row) : undefined;
}

/** The repository, its owner, and its pull request `index` with that pull request's issue. */
export async function repoWithPullByNames(db: Knex, ownerName: string, repoName: string, index: number): Promise<RepoWithPull | undefined> {
  const row = await selectFirstRowByTable(db, REPO_WITH_PULL_SQL, [index, ownerName.toLowerCase(), repoName.toLowerCase()]);
  if (!row) return undefined;
  const found = withPullRows(row);
  if (found.pull) {
    const computed = row[''] ?? {};
    found.extras = {
      labelIds: idList(computed.label_ids),
      assigneeIds: idList(computed.assignee_ids),
      queueEntry: row.merge_queue_entries?.id != null ? row.merge_queue_entries : null,
      hasReviews: Number(computed.has_reviews) !== 0,
      users: [row.posters, row.mergers].flatMap((u) => (u?.id != null ? [toUserRow(u)!] : [])),
    };
  }
  return found;
}
