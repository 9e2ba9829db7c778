// Review requests (Gitea's services/issue/assignee.go ReviewRequest, models/issues/review.go
// AddReviewRequest...): a request is a review row of type REQUEST_REVIEW, for a user or a team of
// the repository's organization, and each change leaves a `review_request` row on the timeline.
import type { Knex } from 'knex';
import { ForbiddenError, NotFoundError, UnprocessableError } from './errors.js';
import { repoAccessMode, type RepoContext } from './permissions.js';
import { addComment } from './comments.js';
import { mayChooseReviewers } from './repo-people.js';
import { isOfficialReviewer, isOfficialReviewerTeam } from './review-official.js';
import { restoreLatestOfficial, type ReviewPull } from './reviews.js';
import { reposStore } from '../db/repos.js';
import { reviewsStore } from '../db/reviews.js';
import { toTeamRow, type TeamRow } from '../db/teams.js';
import { toUserRow, usersStore, USER_TYPE, type UserRow } from '../db/users.js';
import { recordHookEvents, type NewHookEvent } from './webhooks/outbox.js';

/** pull_request_review_request: one event per reviewer asked or no longer asked. */
function reviewRequestEvents(pull: ReviewPull, doer: UserRow, reviewerIds: number[], add: boolean): NewHookEvent[] {
  return reviewerIds.map((reviewerId) => ({
    repoId: pull.issue.repo_id, event: 'pull_request_review_request', action: add ? 'review_requested' : 'review_request_removed',
    doerId: doer.id, detail: { kind: 'issue', issueId: pull.issue.id, reviewerId },
  }));
}

/** Names as a client sends them: user names or e-mail addresses, and team names. */
export interface ReviewRequestNames {
  reviewers?: string[];
  team_reviewers?: string[];
}

export interface ResolvedReviewers {
  users: UserRow[];
  teams: TeamRow[];
}

/** Users by name (or by e-mail when the name has an @) and teams of the organization; 404 names the first unknown one. */
export async function resolveReviewers(db: Knex, ctx: RepoContext, names: ReviewRequestNames): Promise<ResolvedReviewers> {
  const users: UserRow[] = [];
  for (const name of names.reviewers ?? []) {
    const user = name.includes('@')
      ? toUserRow(await db('users').where({ email: name }).first())
      : await usersStore(db).byName(name);
    if (!user) throw new NotFoundError(`User '${name.slice(0, 255)}' not exist`);
    users.push(user);
  }
  const teams: TeamRow[] = [];
  if (ctx.owner.type === USER_TYPE.organization) {
    for (const name of names.team_reviewers ?? []) {
      const row = await db('teams').where({ org_id: ctx.owner.id, lower_name: name.toLowerCase() }).first();
      if (!row) throw new NotFoundError(`Team '${name.slice(0, 255)}' not exist`);
      teams.push(toTeamRow(row));
    }
  }
  return { users, teams };
}

function invalid(reason: string, doer: UserRow, ctx: RepoContext): UnprocessableError {
  return new UnprocessableError(`${reason} [user_id: ${doer.id}, repo_id: ${ctx.repo.id}]`);
}

function assertOpen(pull: ReviewPull): void {
  if (pull.issue.is_closed || pull.hasMerged) throw new ForbiddenError('cannot request a re-review on a closed or merged PR');
}

/**
 * Requests reviews from users and teams; answers the review rows it made (a user already asked
 * is not asked twice). Removal (`add` false) deletes open requests only.
 */
export async function changeReviewRequests(db: Knex, ctx: RepoContext, pull: ReviewPull, doer: UserRow, who: ResolvedReviewers, add: boolean): Promise<number[]> {
  const made: number[] = [];
  const { issue } = pull;
  const mayChange = await mayChooseReviewers(db, ctx, doer, pull.issue.poster_id ?? 0);
  for (const reviewer of who.users) {
    if (reviewer.type === USER_TYPE.organization) throw invalid("Organization can't be added as reviewer", doer, ctx);
    const last = await reviewsStore(db).latestVerdictOrRequest(issue.id, reviewer.id);
    if (add) {
      if ((await repoAccessMode(db, ctx.repo, ctx.owner, reviewer)) === 'none') throw invalid("Reviewer can't read", doer, ctx);
      if (reviewer.id === issue.poster_id) throw invalid("poster of pr can't be reviewer", doer, ctx);
      const posterReRequests = doer.id === issue.poster_id && last !== undefined && last.type !== 'REQUEST_REVIEW';
      if (!mayChange && !posterReRequests) throw invalid("Doer can't choose reviewer", doer, ctx);
      if (last?.type === 'REQUEST_REVIEW') continue;
      if (last) assertOpen(pull);
      const official = await isOfficialReviewer(db, ctx, issue, reviewer);
      made.push(await db.transaction(async (trx) => {
        const store = reviewsStore(trx);
        if (official) await store.unofficializeReviewer(issue.id, reviewer.id, trx);
        const id = await store.insert({ issue_id: issue.id, reviewer_id: reviewer.id, type: 'REQUEST_REVIEW', content: '', commit_id: '', official }, trx);
        await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'review_request', content: '', review_id: id, assignee_id: reviewer.id });
        await recordHookEvents(trx, reviewRequestEvents(pull, doer, [reviewer.id], true));
        return id;
      }));
    } else {
      if (!mayChange && !(last?.type === 'REQUEST_REVIEW' && last.reviewer_id === doer.id)) throw invalid("Doer can't remove reviewer", doer, ctx);
      if (last?.type !== 'REQUEST_REVIEW') continue;
      const official = await isOfficialReviewer(db, ctx, issue, reviewer);
      await db.transaction(async (trx) => {
        await reviewsStore(trx).remove(last.id, trx);
        if (official) await restoreLatestOfficial(trx, issue.id, reviewer.id);
        await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'review_request', content: '', assignee_id: reviewer.id, removed_assignee: true });
        await recordHookEvents(trx, reviewRequestEvents(pull, doer, [reviewer.id], false));
      });
    }
  }
  for (const team of who.teams) {
    if (add) {
      if (ctx.repo.is_private && !(await db('team_repos').where({ team_id: team.id, repo_id: ctx.repo.id }).first('team_id')) && !team.includes_all_repositories) {
        throw invalid("Reviewing team can't read repo", doer, ctx);
      }
      if (!mayChange) throw invalid("Doer can't choose reviewer", doer, ctx);
      if (await reviewsStore(db).teamRequest(issue.id, team.id)) continue;
      const official = (await isOfficialReviewerTeam(db, ctx, issue, team)) || (await isOfficialReviewer(db, ctx, issue, doer));
      made.push(await db.transaction(async (trx) => {
        const id = await reviewsStore(trx).insert({ issue_id: issue.id, reviewer_team_id: team.id, type: 'REQUEST_REVIEW', content: '', commit_id: '', official }, trx);
        await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'review_request', content: '', review_id: id, assignee_team_id: team.id });
        // Gitea tells each of the team's members (but the poster) they were asked.
        const members = (await trx('team_members').where({ team_id: team.id }).select('user_id')).map((r: { user_id: unknown }) => Number(r.user_id));
        await recordHookEvents(trx, reviewRequestEvents(pull, doer, members.filter((m) => m !== issue.poster_id), true));
        return id;
      }));
    } else {
      if (!mayChange) throw invalid("Doer can't remove reviewer", doer, ctx);
      const request = await reviewsStore(db).teamRequest(issue.id, team.id);
      if (!request) continue;
      await db.transaction(async (trx) => {
        await reviewsStore(trx).remove(request.id, trx);
        await addComment(trx, { issueId: issue.id, posterId: doer.id, type: 'review_request', content: '', assignee_team_id: team.id, removed_assignee: true });
      });
    }
  }
  return made;
}

export interface RequestedReviewers {
  userIds: number[];
  teamIds: number[];
}

/**
 * What a pull request's `requested_reviewers` lists (Gitea's GetReviewsByIssueID): every reviewer
 * whose latest review is a verdict, a comment or an open request, not dismissed, and every team
 * asked; in the order of their last change.
 */
export async function requestedReviewersOf(db: Knex, issueIds: number[]): Promise<Map<number, RequestedReviewers>> {
  const out = new Map<number, RequestedReviewers>();
  const latestUser = new Map<string, { userId: number; at: number; id: number }>();
  const latestTeam = new Map<string, { teamId: number; at: number; id: number }>();
  const counted = new Set(['APPROVED', 'REQUEST_CHANGES', 'REQUEST_REVIEW', 'COMMENT']);
  for (const r of await reviewsStore(db).ofIssues(issueIds)) {
    if (r.reviewer_team_id === null && r.reviewer_id !== null && counted.has(r.type) && !r.dismissed) {
      latestUser.set(`${r.issue_id}/${r.reviewer_id}`, { userId: r.reviewer_id, at: r.updated_unix, id: r.id });
    } else if (r.reviewer_team_id !== null) {
      latestTeam.set(`${r.issue_id}/${r.reviewer_team_id}`, { teamId: r.reviewer_team_id, at: r.updated_unix, id: r.id });
    }
  }
  const entry = (issueId: number) => out.get(issueId) ?? out.set(issueId, { userIds: [], teamIds: [] }).get(issueId)!;
  const byChange = (a: { at: number; id: number }, b: { at: number; id: number }) => a.at - b.at || a.id - b.id;
  for (const [key, v] of [...latestUser].sort((a, b) => byChange(a[1], b[1]))) entry(Number(key.split('/')[0])).userIds.push(v.userId);
  for (const [key, v] of [...latestTeam].sort((a, b) => byChange(a[1], b[1]))) entry(Number(key.split('/')[0])).teamIds.push(v.teamId);
  return out;
}
