// Cheap pre-scan run by the HTTP route on the main thread: which user names and issue references
// might the renderer link? The route resolves them with two bulk queries and passes the answers in
// RenderRequest.mentionable and RenderRequest.issues.
import { parseRepoContext } from './context.js';
import { issueKey, scanReferences } from './reference-scan.js';

export type ReferenceCandidates = {
  /** Lower-cased user names, first-seen order, at most `limit`. */
  mentions: string[];
  /** `owner/repo#N` keys (owner and repo lower-cased), first-seen order, at most `limit`. */
  issues: string[];
};

/**
 * Scans raw markdown (no parsing) for `@user`, `#N`, `!N` and `owner/repo#N`. Short references use the
 * Context's repository and are skipped when the Context names none. The scan is linear and stops
 * once both lists hold `limit` distinct entries; anything beyond the cap stays unresolved, so the
 * renderer leaves it as text. Pass `appUrl` when the Context may be a full URL under a sub-path.
 */
export function extractReferenceCandidates(text: string, context: string, limit = 1000, appUrl?: string): ReferenceCandidates {
  const mentions = new Set<string>();
  const issues = new Set<string>();
  if (limit <= 0 || text === '') return { mentions: [], issues: [] };
  const repo = parseRepoContext(context, appUrl);

  const addMention = (name: string) => {
    if (mentions.size < limit) mentions.add(name.toLowerCase());
  };
  const addIssue = (owner: string | undefined, name: string | undefined, digits: string) => {
    const key = owner && name ? issueKey(owner, name, digits) : null;
    if (key && issues.size < limit) issues.add(key);
  };

  scanReferences(text, true, (match) => {
    if (match.kind === 'mention') {
      addMention(match.name);
      // The renderer sees text tokens, not source: `_@bob_` shows it `@bob`, and `@bob.)` keeps the dot.
      let kept = match.name.length;
      while (kept > 0 && (match.name[kept - 1] === '.' || match.name[kept - 1] === '_')) kept--;
      if (kept > 0 && kept < match.name.length) addMention(match.name.slice(0, kept));
      const after = text.charCodeAt(match.end + 1);
      if (text.charCodeAt(match.end) === 46 && !Number.isNaN(after) && !/\s/.test(String.fromCharCode(after))) {
        addMention(match.name + '.');
      }
    } else {
      const owner = match.owner ?? repo?.owner;
      const name = match.repo ?? repo?.repo;
      addIssue(owner, name, match.digits);
      // `_owner/repo#1_` is emphasis around `owner/repo#1` once rendered.
      if (match.owner?.startsWith('_')) addIssue(match.owner.replace(/^_+/, ''), name, match.digits);
    }
    return mentions.size < limit || issues.size < limit;
  });

  return { mentions: [...mentions], issues: [...issues] };
}
