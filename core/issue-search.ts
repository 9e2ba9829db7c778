// Searching issues and pull requests across the repositories the caller may see (Gitea's
// routers/api/v1/repo/issue.go SearchIssues): its filters, and its refusals.
import type { Knex } from 'knex';
import { BadRequestError, NotFoundError, UnprocessableError } from './errors.js';
import { labelIdsNamed, milestoneIdsNamed, searchIssues, type IssueSearch } from '../db/issue-search.js';
import { repositoryIdsQuery } from '../db/repo-search.js';
import { teamsStore } from '../db/teams.js';
import { usersStore, type UserRow } from '../db/users.js';

export interface IssueSearchQuery {
  state?: string | undefined;
  labels?: string | undefined;
  milestones?: string | undefined;
  q?: string | undefined;
  type?: string | undefined;
  since?: string | undefined;
  before?: string | undefined;
  /** Gitea's FormBool values, already read. */
  assigned: boolean;
  created: boolean;
  mentioned: boolean;
  reviewRequested: boolean;
  reviewed: boolean;
  owner?: string | undefined;
  createdBy?: string | undefined;
  team?: string | undefined;
}

/** Go's time.Parse(time.RFC3339, ...) for since/before; a value it refuses is 422 with its words. */
function unixOf(value: string | undefined): number | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
  const ms = rfc3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new UnprocessableError(`parsing time "${text}" as "2006-01-02T15:04:05Z07:00": cannot parse "${text}" as "2006"`);
  return Math.floor(ms / 1000);
}

function names(list: string | undefined): string[] {
  const text = (list ?? '').trim();
  return text === '' ? [] : text.split(',');
}

async function userNamed(db: Knex, name: string): Promise<UserRow | undefined> {
  return usersStore(db).byName(name);
}

export async function searchVisibleIssues(db: Knex, doer: UserRow | null, publicOnly: boolean, q: IssueSearchQuery, page: { limit: number; offset: number }) {
  const sinceUnix = unixOf(q.since);
  const beforeUnix = unixOf(q.before);
  let ownerId: number | undefined;
  let teamId: number | undefined;
  if (q.owner) {
    const owner = await userNamed(db, q.owner);
    if (!owner) throw new BadRequestError(`user does not exist [uid: 0, name: ${q.owner}]`);
    ownerId = owner.id;
  }
  if (q.team) {
    if (ownerId === undefined) throw new BadRequestError('owner organisation is required for filtering on team');
    const team = await teamsStore(db).byOrgAndName(ownerId, q.team);
    if (!team) throw new BadRequestError(`team does not exist [org_id ${ownerId}, team_id 0, name: ${q.team}]`);
    teamId = team.id;
  }
  const search: IssueSearch = {
    repoIds: repositoryIdsQuery(db, { viewer: doer, includePrivate: doer !== null && !publicOnly, ownerId, collaborate: ownerId ? false : undefined, teamId }),
    // An unknown state lists open ones, as in Gitea.
    isClosed: q.state === 'all' ? undefined : q.state === 'closed',
    isPull: q.type === 'pulls' ? true : q.type === 'issues' ? false : undefined,
    anyLabelIds: await labelIdsNamed(db, names(q.labels)),
    milestoneIds: await milestoneIdsNamed(db, names(q.milestones)),
    keyword: (q.q ?? '').trim().includes('\0') ? undefined : (q.q ?? '').trim() || undefined,
    updatedAfterUnix: sinceUnix,
    updatedBeforeUnix: beforeUnix,
  };
  if (q.createdBy) {
    const poster = await userNamed(db, q.createdBy);
    if (!poster) throw new NotFoundError(`user does not exist [uid: 0, name: ${q.createdBy}]`);
    search.posterId = poster.id;
  }
  if (doer) {
    if (q.created) search.posterId = doer.id;
    if (q.assigned) search.assigneeId = doer.id;
    if (q.mentioned) search.mentionedId = doer.id;
    if (q.reviewRequested) search.reviewRequestedId = doer.id;
    if (q.reviewed) search.reviewedId = doer.id;
  }
  return searchIssues(db, search, page);
}
