// Gitea's ContentsResponse and the file-change answers (services/repository/files/content.go,
// file.go): the links every entry carries, its type-specific fields and the commit made.
import type { RefCommit } from '../../core/code-refs.js';
import type { ContentEntry } from '../../core/code-read.js';
import { unverifiedCommit, type CommitInfo } from '../../git/index.js';
import { goQueryEscape } from '../paging.js';
import { ZERO_TIME } from './commit.js';

/** Go's url.PathEscape: like encodeURIComponent, but the sub-delimiters, ':' and '@' stay as they are. */
export function goPathEscape(segment: string): string {
  return encodeURIComponent(segment).replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (m) => decodeURIComponent(m));
}

/** Gitea's util.PathEscapeSegments: each segment escaped, the slashes kept. */
export function pathSegments(path: string): string {
  return path.split('/').map(goPathEscape).join('/');
}

export interface RepoLinks {
  api: string;
  html: string;
}

/** A repository's API and web addresses, the bases of every link in the code routes' answers. */
export function repoLinks(appUrl: string, ctx: { owner: { name: string }; repo: { name: string } }): RepoLinks {
  return { api: `${appUrl}api/v1/repos/${ctx.owner.name}/${ctx.repo.name}`, html: `${appUrl}${ctx.owner.name}/${ctx.repo.name}` };
}

/** Gitea's RefWebLinkPath: "branch/<name>", "tag/<name>" or "commit/<sha>". */
function refWebLinkPath(ref: RefCommit): string {
  return `${ref.kind}/${ref.kind === 'commit' ? ref.commit : pathSegments(ref.name)}`;
}

export function toContentsResponse(entry: ContentEntry, ref: RefCommit, links: RepoLinks) {
  const self = `${links.api}/contents/${pathSegments(entry.path)}?ref=${goQueryEscape(ref.input)}`;
  const linked = entry.kind !== 'submodule';
  const html = linked ? `${links.html}/src/${refWebLinkPath(ref)}/${pathSegments(entry.path)}` : null;
  const git = linked ? `${links.api}/git/blobs/${entry.sha}` : null;
  return {
    name: entry.name,
    path: entry.path,
    sha: entry.sha,
    ...(entry.lastCommit ? {
      last_commit_sha: entry.lastCommit.sha,
      last_committer_date: entry.lastCommit.committer.date,
      last_author_date: entry.lastCommit.author.date,
    } : {}),
    type: entry.kind,
    size: entry.size,
    encoding: entry.contentBase64 !== null ? 'base64' : null,
    content: entry.contentBase64,
    target: entry.target,
    url: self,
    html_url: html,
    git_url: git,
    download_url: entry.kind === 'file' || entry.kind === 'symlink' ? `${links.html}/raw/${refWebLinkPath(ref)}/${pathSegments(entry.path)}` : null,
    submodule_git_url: entry.submoduleUrl,
    _links: { self, git, html },
  };
}

/** Gitea's FileCommitResponse: dates in UTC, the tree's own id. */
export function toFileCommitResponse(commit: CommitInfo, links: RepoLinks) {
  const utc = (date: string) => new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    url: `${links.api}/git/commits/${commit.sha}`,
    sha: commit.sha,
    created: ZERO_TIME,
    html_url: `${links.html}/commit/${commit.sha}`,
    author: { name: commit.author.name, email: commit.author.email, date: utc(commit.author.date) },
    committer: { name: commit.committer.name, email: commit.committer.email, date: utc(commit.committer.date) },
    parents: commit.parents.map((p) => ({ url: `${links.api}/git/commits/${p}`, sha: p, created: ZERO_TIME })),
    message: commit.message,
    tree: { url: `${links.api}/git/trees/${commit.tree}`, sha: commit.tree, created: ZERO_TIME },
  };
}

export function fileVerification(commit: CommitInfo) {
  return unverifiedCommit(commit.signature, 'gpg.error.not_signed_commit');
}

/** Gitea's Content-Disposition: a plain token name as is, anything else in RFC 5987 form. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  return /^[A-Za-z0-9!#$&+.^_`|~-]+$/.test(fileName) ? `${kind}; filename=${fileName}` : `${kind}; filename*=UTF-8''${goPathEscape(fileName)}`;
}

/** What every served user file carries, so a browser never runs it as a page (Gitea's headers). */
export const USER_CONTENT_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'x-content-type-options': 'nosniff',
  'access-control-expose-headers': 'Content-Disposition',
};
