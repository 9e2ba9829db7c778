// The piece of a diff a review comment shows (Gitea's `diff_hunk`): the hunk around the commented
// line, ending at it, cut to the last few lines with a recomputed hunk header, as Gitea stores a
// code comment's patch (git.CutDiffAroundLine, CodeCommentLines = 4).
export const CODE_COMMENT_LINES = 4;

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

interface Hunk {
  headers: string[];
  /** The hunk header, then its lines up to and including the commented one. */
  lines: string[];
  /** Numbers of the line after the last one kept, on the commented side and on the other. */
  next: number;
  nextOther: number;
}

/** The hunk holding `line` on the chosen side, read up to that line; null when no hunk holds it. */
function findHunk(diff: string, line: number, old: boolean): Hunk | null {
  const headers: string[] = [];
  let found: Hunk | null = null;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const isHeader = text.startsWith('diff --git ') || (!inHunk && (text.startsWith('---') || text.startsWith('+++')));
    if (isHeader) {
      if (text.startsWith('diff --git ')) inHunk = false;
      headers.push(text);
      if (found) found.headers.push(text);
    }
    if (found && found.next > line) break;
    const m = text.startsWith('@@') ? HUNK_HEADER.exec(text) : null;
    if (text.startsWith('@@')) {
      inHunk = true;
      if (found && found.lines.length > 0) break;
      if (!m) continue;
      const [oldBegin, oldCount, newBegin, newCount] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3]), Number(m[4] ?? 0)];
      const begin = old ? oldBegin : newBegin;
      // Gitea's own bound: the hunk's last line plus one still counts as inside.
      const end = begin + (old ? oldCount : newCount);
      if (begin <= line && line <= end) found = { headers: [...headers], lines: [text], next: begin, nextOther: old ? newBegin : oldBegin };
      continue;
    }
    if (!found || found.lines.length === 0 || isHeader) continue;
    found.lines.push(text);
    const mark = text[0];
    const onSide = old ? mark === '-' : mark === '+';
    const onOther = old ? mark === '+' : mark === '-';
    if (onSide) found.next++;
    else if (onOther) found.nextOther++;
    else if (mark !== '\\') { found.next++; found.nextOther++; }
  }
  return found && found.next > 0 ? found : null;
}

/** The cut patch (file headers, a hunk header, at most `keep` lines), or '' when the line is in no hunk. */
export function cutDiffAroundLine(diff: string, line: number, old: boolean, keep = CODE_COMMENT_LINES): string {
  if (line === 0 || keep === 0) return '';
  const hunk = findHunk(diff, line, old);
  if (!hunk) return '';
  if (hunk.lines.length - 1 <= keep) return [...hunk.headers, ...hunk.lines].join('\n');
  const kept = hunk.lines.slice(-keep);
  let [sideBegin, otherBegin, sideCount, otherCount] = [hunk.next, hunk.nextOther, 0, 0];
  for (const text of kept) {
    const mark = text[0];
    if (mark === (old ? '-' : '+')) { sideBegin--; sideCount++; }
    else if (mark === (old ? '+' : '-')) { otherBegin--; otherCount++; }
    else { sideBegin--; otherBegin--; sideCount++; otherCount++; }
  }
  const [oldBegin, oldCount, newBegin, newCount] = old ? [sideBegin, sideCount, otherBegin, otherCount] : [otherBegin, otherCount, sideBegin, sideCount];
  return [...hunk.headers, `@@ -${oldBegin},${oldCount} +${newBegin},${newCount} @@`, ...kept].join('\n');
}

/** A patch for a line the diff does not touch: the lines above it as context (Gitea's GeneratePatchForUnchangedLine). */
export function patchForUnchangedLines(path: string, startLine: number, lines: string[]): string {
  if (lines.length === 0) return '';
  return [
    `diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`,
    `@@ -${startLine},${lines.length} +${startLine},${lines.length} @@`,
    ...lines.map((l) => ` ${l}`),
  ].join('\n') + '\n';
}

/** What Gitea shows of a stored patch: from its first hunk header on (services/convert patch2diff). */
export function diffHunkOf(patch: string): string {
  const parts = patch.split('\n@@');
  return parts.length === 2 ? `@@${parts[1]}` : '';
}
