// Reads the request's Context into a repository and ref, and resolves relative links against it.
import type { RepoLinks } from './types.js';

const REF_TYPES = new Set(['branch', 'commit', 'tag']);
const REPO_NAME = /^[\w.-]+$/;

/** Path segments of a Context after removing the instance URL (or just its host) from the front. */
function contextSegments(context: string, appUrl: string | undefined): string[] {
  let path = context.trim();
  if (appUrl) {
    const appPath = appUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
    if (path.toLowerCase().startsWith(appUrl.toLowerCase())) path = path.slice(appUrl.length);
    else if (appPath.length > 1 && path.startsWith(appPath)) path = path.slice(appPath.length);
  }
  // A Context naming another host still carries the repository path.
  path = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  return path.split('/').filter((segment) => segment !== '');
}

export type RepoContext = { owner: string; repo: string; refPath: string; treePath: string };

/**
 * Finds owner, repo and (for `/owner/repo/src/<type>/<ref>/<dir>`) the ref and directory in a Context.
 * `filePath` tells where the ref name ends when it contains slashes, as Gitea does; without it a
 * single-segment ref name is assumed. Returns null when the Context names no repository.
 */
export function parseRepoContext(context: string, appUrl?: string, filePath = ''): RepoContext | null {
  const segments = contextSegments(context, appUrl);
  const srcAt = segments.findIndex((s, i) => i >= 2 && s === 'src' && REF_TYPES.has(segments[i + 1] ?? '') && i + 2 < segments.length);
  const ownerAt = srcAt >= 2 && !appUrl ? srcAt - 2 : 0;
  const owner = segments[ownerAt];
  const repo = segments[ownerAt + 1];
  if (!owner || !repo || !REPO_NAME.test(owner) || !REPO_NAME.test(repo)) return null;
  if (segments[ownerAt + 2] !== 'src' || !REF_TYPES.has(segments[ownerAt + 3] ?? '') || segments.length < ownerAt + 5) {
    return { owner, repo, refPath: '', treePath: '' };
  }
  const rest = segments.slice(ownerAt + 3);
  const fileDir = directoryOf(filePath);
  const joined = rest.join('/');
  if (fileDir && joined.endsWith('/' + fileDir) && joined.length > fileDir.length + 1) {
    return { owner, repo, refPath: joined.slice(0, joined.length - fileDir.length - 1), treePath: fileDir };
  }
  return { owner, repo, refPath: rest.slice(0, 2).join('/'), treePath: rest.slice(2).join('/') };
}

function directoryOf(filePath: string): string {
  const cut = filePath.lastIndexOf('/');
  return cut <= 0 ? '' : filePath.slice(0, cut).replace(/^\/+/, '');
}

export function repoLinksFor(context: string, appUrl: string, filePath: string): RepoLinks | null {
  const parsed = parseRepoContext(context, appUrl, filePath);
  if (!parsed) return null;
  return { ...parsed, base: `${appUrl}${parsed.owner}/${parsed.repo}` };
}

/** True for links that carry their own scheme (`https:`, `mailto:`...), as Gitea's full-URL test. */
export function isFullUrl(link: string): boolean {
  return /^[a-z][-+\w]+:/i.test(link);
}

/** Go's path.Clean for an absolute path: no empty or `.` segments, `..` never above the root. */
function cleanAbsolutePath(path: string): string {
  const kept: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') kept.pop();
    else kept.push(segment);
  }
  return '/' + kept.join('/');
}

/**
 * Resolves `link` against `{base}/{dir}`; a link starting with `/` is taken from `base` itself, and
 * `..` never climbs above `base`. Query and fragment are kept. Absolute URLs, protocol-relative
 * links and same-page anchors are returned unchanged.
 */
export function resolveUnder(base: string, dir: string, link: string): string {
  if (link === '' || link.startsWith('#') || link.startsWith('//') || isFullUrl(link)) return link;
  const cut = link.search(/[?#]/);
  const path = cut < 0 ? link : link.slice(0, cut);
  const suffix = cut < 0 ? '' : link.slice(cut);
  const joined = cleanAbsolutePath((path.startsWith('/') ? '' : `/${dir}`) + '/' + path);
  return base.replace(/\/+$/, '') + (joined === '/' ? '' : joined) + suffix;
}

export type LinkKind = 'link' | 'media';

/** Where a relative link or image of the rendered document points. */
export function resolveDocumentLink(links: RepoLinks | null, wiki: boolean, kind: LinkKind, link: string): string {
  if (!links) return link;
  if (wiki) return resolveUnder(`${links.base}/wiki${kind === 'media' ? '/raw' : ''}`, '', link);
  if (!links.refPath) return resolveUnder(links.base, '', link);
  const area = kind === 'media' ? 'media' : 'src';
  return resolveUnder(`${links.base}/${area}/${links.refPath}`, links.treePath, link);
}
