// Gitea's Commit (services/convert/git_commit.go ToCommit) for a page of commits: the accounts of
// the authors and committers read with one query, the files and stats asked for from git.
import type { Knex } from 'knex';
import { toUserRow, type UserRow } from '../../db/users.js';
import { commitFiles, commitStats, unverifiedCommit, type CommitInfo } from '../../git/index.js';
import { toApiUser } from './user.js';
import { readCache } from '../../core/read-cache.js';

export const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface CommitParts {
  stat: boolean;
  files: boolean;
  verification: boolean;
}

export interface CommitRepoLinks {
  /** e.g. http://host/api/v1/repos/alice/widget */
  api: string;
  /** e.g. http://host/alice/widget */
  html: string;
}

/** Gitea accounts by commit e-mail (lower-cased), one query for the page. */
export async function usersByCommitEmail(db: Knex, commits: CommitInfo[]): Promise<Map<string, UserRow>> {
  const emails = [...new Set(commits.flatMap((c) => [c.author.email, c.committer.email]).map((e) => e.toLowerCase()).filter(Boolean))];
  if (emails.length === 0) return new Map();
  const rows = await db('users').whereIn('lower_email', emails).andWhere('type', 0);
  return new Map(rows.map((r: Record<string, unknown>) => { const u = toUserRow(r)!; return [u.lower_email, u] as const; }));
}

export async function toApiCommits(
  db: Knex, repoPath: string, links: CommitRepoLinks, commits: CommitInfo[], parts: CommitParts, viewer: UserRow | null, appUrl: string,
  /** The page's accounts when the caller has read them already. */
  known?: Map<string, UserRow>,
) {
  const users = known ?? await usersByCommitEmail(db, commits);
  const person = (email: string) => {
    const u = users.get(email.toLowerCase());
    return u ? toApiUser(u, viewer, appUrl) : null;
  };
  return Promise.all(commits.map(async (c) => {
    // A commit's stats and files are its own forever: asked of git once.
    const [stats, files] = await Promise.all([
      parts.stat ? readCache.memo(`cs\0${repoPath}\0${c.sha}`, () => commitStats(repoPath, c.sha)) : null,
      parts.files ? readCache.memo(`cf\0${repoPath}\0${c.sha}`, () => commitFiles(repoPath, c.sha)) : null,
    ]);
    return {
      url: `${links.api}/git/commits/${c.sha}`,
      sha: c.sha,
      created: c.committer.date,
      html_url: `${links.html}/commit/${c.sha}`,
      commit: {
        url: `${links.api}/git/commits/${c.sha}`,
        author: { name: c.author.name, email: c.author.email, date: c.author.date },
        committer: { name: c.committer.name, email: c.committer.email, date: c.committer.date },
        message: c.message,
        // Gitea puts the commit id in the tree record; clients read it that way.
        tree: { url: `${links.api}/git/trees/${c.sha}`, sha: c.sha, created: c.committer.date },
        verification: parts.verification ? unverifiedCommit(c.signature) : null,
      },
      author: person(c.author.email),
      committer: person(c.committer.email),
      parents: c.parents.map((p) => ({ url: `${links.api}/git/commits/${p}`, sha: p, created: ZERO_TIME })),
      files: files ? files.map((f) => ({ filename: f.filename, status: f.status })) : null,
      stats,
    };
  }));
}
