// push, create and delete payloads (Gitea's services/repository/push.go and webhook notifier):
// the commits a push brought, as PayloadCommit, read from git when the event is dispatched.
import { repoDiskPath } from '../../repositories.js';
import { userNamesByEmail } from '../../../db/hooks.js';
import { commitFiles, isZeroSha, listCommits, readCommits, zeroSha, type CommitInfo } from '../../../git/index.js';
import type { PayloadContext } from './context.js';

/** Gitea's setting.UI.FeedMaxCommitNum: a push payload lists at most this many commits. */
const FEED_MAX_COMMITS = 5;
/** Gitea lists at most this many commits of a new branch (CommitsBeforeLimit(10)). */
const NEW_BRANCH_COMMITS = 10;

export interface RefDetail {
  ref: string;
  before: string;
  after: string;
}

export function shortRefName(ref: string): string {
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  if (ref.startsWith('refs/tags/')) return ref.slice('refs/tags/'.length);
  return ref;
}

function refType(ref: string): string {
  return ref.startsWith('refs/tags/') ? 'tag' : 'branch';
}

/** Gitea's ToAPIPayloadCommit: authors matched to accounts by e-mail, the files the commit changed. */
export async function payloadCommits(pc: PayloadContext, repoPath: string, commits: CommitInfo[], opts: { verification?: boolean } = {}) {
  const names = await userNamesByEmail(pc.deps.db, commits.flatMap((c) => [c.author.email, c.committer.email]));
  return Promise.all(commits.map(async (c) => {
    const files = opts.verification ? null : await commitFiles(repoPath, c.sha).catch(() => []);
    const pick = (status: string) => (files ? files.filter((f) => f.status === status || (status === 'added' && f.status === 'renamed')).map((f) => f.filename) : null);
    return {
      id: c.sha,
      message: c.message,
      url: `${pc.repoHtmlUrl}/commit/${c.sha}`,
      author: { name: c.author.name, email: c.author.email, username: names.get(c.author.email.toLowerCase()) ?? '' },
      committer: { name: c.committer.name, email: c.committer.email, username: names.get(c.committer.email.toLowerCase()) ?? '' },
      // The test delivery converts with the commit's verification, real pushes without (Gitea).
      verification: opts.verification ? { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' } : null,
      timestamp: c.author.date,
      added: pick('added'),
      removed: pick('removed'),
      modified: pick('modified'),
    };
  }));
}

/** Gitea's ComposeCompareURL, relative to APP_URL (the payload puts APP_URL before it, even when empty). */
function compareUrl(pc: PayloadContext, from: string, to: string): string {
  return `${pc.view.owner.name}/${pc.view.repo.name}/compare/${from}...${to}`;
}

/** The commits of a branch push, newest first, and the compare link (Gitea's pushUpdates and getCompareURL). */
async function branchPushCommits(pc: PayloadContext, path: string, d: RefDetail) {
  if (!isZeroSha(d.before)) {
    const all = await listCommits(path, { from: d.before, to: d.after });
    return { commits: all, total: all.length, compare: compareUrl(pc, d.before, d.after) };
  }
  const all = await listCommits(path, { from: null, to: d.after }, { limit: NEW_BRANCH_COMMITS });
  const oldest = all[all.length - 1];
  let from = oldest?.parents[0] ?? '';
  if (!from && shortRefName(d.ref) !== pc.view.repo.default_branch) from = pc.view.repo.default_branch;
  return { commits: all, total: all.length, compare: from ? compareUrl(pc, from, d.after) : '' };
}

export async function pushPayload(pc: PayloadContext, d: RefDetail, pusherId: number | null) {
  const path = repoDiskPath(pc.deps.config, pc.view.owner.name, pc.view.repo.name);
  const tag = d.ref.startsWith('refs/tags/');
  let listed: CommitInfo[] = [];
  let total = 0;
  let compare = '';
  let head: CommitInfo | undefined;
  if (!isZeroSha(d.after)) {
    [head] = await readCommits(path, [d.after]);
    if (!tag) {
      const found = await branchPushCommits(pc, path, d);
      listed = found.commits.slice(0, FEED_MAX_COMMITS);
      total = found.total;
      compare = found.compare;
    } else {
      compare = compareUrl(pc, zeroSha(d.after), d.after);
    }
  }
  const converted = await payloadCommits(pc, path, head && !listed.some((c) => c.sha === head!.sha) ? [...listed, head] : listed);
  const commits = converted.slice(0, listed.length);
  const pusher = await pc.sender(pusherId);
  return {
    ref: d.ref,
    before: d.before,
    after: d.after,
    compare_url: `${pc.appUrl}${compare}`,
    commits,
    total_commits: total,
    head_commit: head ? converted.find((c) => c.id === head!.sha) ?? null : null,
    repository: await pc.repository({ mode: 'owner' }),
    pusher,
    sender: pusher,
  };
}

export async function createPayload(pc: PayloadContext, d: RefDetail, doerId: number | null) {
  return {
    sha: d.after,
    ref: shortRefName(d.ref),
    ref_type: refType(d.ref),
    repository: await pc.repository({ mode: 'none' }),
    sender: await pc.sender(doerId),
  };
}

export async function deletePayload(pc: PayloadContext, d: RefDetail, doerId: number | null) {
  return {
    ref: shortRefName(d.ref),
    ref_type: refType(d.ref),
    pusher_type: 'user',
    repository: await pc.repository({ mode: 'owner' }),
    sender: await pc.sender(doerId),
  };
}

/** POST .../hooks/{id}/tests: Gitea's test delivery, a push of the ref's tip onto itself. */
export async function testPushPayload(pc: PayloadContext, ref: string, sha: string, doerId: number) {
  const path = repoDiskPath(pc.deps.config, pc.view.owner.name, pc.view.repo.name);
  const [commit] = await payloadCommits(pc, path, await readCommits(path, [sha]), { verification: true });
  const doer = await pc.sender(doerId);
  return {
    ref, before: sha, after: sha, compare_url: `${pc.appUrl}${compareUrl(pc, sha, sha)}`, commits: [commit], total_commits: 1, head_commit: commit,
    repository: await pc.repository({ mode: 'none' }), pusher: doer, sender: doer,
  };
}
