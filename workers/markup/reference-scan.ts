// Finds `@user`, `#N`, `!N` and `owner/repo#N` in plain text with one left-to-right pass.
//
// Gitea matches these with regular expressions on rendered text nodes. The scanner below accepts
// the same strings (boundary before, name, terminator after) without backtracking, so a text of any
// length is scanned in linear time. In `lenient` mode the boundary and terminator checks are dropped
// so that a scan of raw markdown finds a superset of what the renderer will later see in its text
// tokens: markup hides boundaries in the source (`**@user**`, `www.example.com@user` where the
// autolink ends right before the `@`).

export type MentionMatch = { kind: 'mention'; start: number; end: number; name: string };
export type IssueMatch = {
  kind: 'issue';
  start: number;
  end: number;
  /** Null for a short `#N` reference to the Context's repository. */
  owner: string | null;
  repo: string | null;
  marker: '#' | '!';
  /** Decimal digits as written. */
  digits: string;
};
export type ReferenceMatch = MentionMatch | IssueMatch;

const TAB = 9, LF = 10, FF = 12, CR = 13, SPACE = 32;

/** Go's RE2 `\s`: ASCII space, tab, newline, form feed, carriage return. */
function isSpace(code: number): boolean {
  return code === SPACE || code === TAB || code === LF || code === FF || code === CR;
}
function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
/** `[-.\w]`: characters of a user name after its first one. */
function isUserNameChar(code: number): boolean {
  return isWordChar(code) || code === 45 || code === 46;
}
/** `[0-9a-zA-Z-_.]`: characters of an owner or repository name. */
function isRepoNameChar(code: number): boolean {
  return isWordChar(code) || code === 45 || code === 46;
}

function charAt(text: string, i: number): number {
  return i >= 0 && i < text.length ? text.charCodeAt(i) : -1;
}

/** Punctuation that may end a reference when followed by whitespace or the end of the text. */
function isClosingPunctuation(code: number): boolean {
  return code === 58 || code === 59 || code === 44 || code === 46 || code === 63 || code === 33; // : ; , . ? !
}

function endsReference(text: string, at: number, quotes: boolean): boolean {
  const code = charAt(text, at);
  if (code === -1 || isSpace(code) || code === 41 || code === 93) return true; // ) ]
  if (quotes && (code === 39 || code === 34)) return true; // ' "
  if (isClosingPunctuation(code)) {
    const next = charAt(text, at + 1);
    return next === -1 || isSpace(next);
  }
  return false;
}

function matchMention(text: string, at: number, lenient: boolean): MentionMatch | null {
  const first = charAt(text, at + 1);
  if (first === -1 || first === 46 || !isUserNameChar(first)) return null;
  let end = at + 2;
  while (isUserNameChar(charAt(text, end))) end++;
  const after = charAt(text, end);
  // The name is matched lazily: a final `.` before whitespace or the end is punctuation, not name.
  if (charAt(text, end - 1) === 46 && end - 1 > at + 1 && (after === -1 || isSpace(after) || lenient)) {
    end--;
  } else if (!lenient) {
    const endsHere = after === -1 || isSpace(after) || after === 39 || after === 41 || after === 93 ||
      (isClosingPunctuation(after) && (charAt(text, end + 1) === -1 || isSpace(charAt(text, end + 1))));
    if (!endsHere) return null;
  }
  return { kind: 'mention', start: at, end, name: text.slice(at + 1, end) };
}

function matchShortIssue(text: string, at: number, lenient: boolean): IssueMatch | null {
  let end = at + 1;
  while (isDigit(charAt(text, end))) end++;
  if (end === at + 1) return null;
  if (!lenient && !endsReference(text, end, true)) return null;
  const marker = text[at] === '!' ? '!' : '#';
  return { kind: 'issue', start: at, end, owner: null, repo: null, marker, digits: text.slice(at + 1, end) };
}

/** Matches `owner/repo#N` starting at `at`; `ownerEnd` receives where the owner run stopped. */
function matchCrossIssue(text: string, at: number, lenient: boolean): { match: IssueMatch | null; scanned: number } {
  let slash = at;
  while (isRepoNameChar(charAt(text, slash))) slash++;
  if (charAt(text, slash) !== 47) return { match: null, scanned: slash };
  let marker = slash + 1;
  while (isRepoNameChar(charAt(text, marker))) marker++;
  const markerCode = charAt(text, marker);
  if (marker === slash + 1 || (markerCode !== 35 && markerCode !== 33)) return { match: null, scanned: slash };
  let end = marker + 1;
  while (isDigit(charAt(text, end))) end++;
  if (end === marker + 1 || (!lenient && !endsReference(text, end, false))) return { match: null, scanned: slash };
  return {
    match: {
      kind: 'issue', start: at, end,
      owner: text.slice(at, slash), repo: text.slice(slash + 1, marker),
      marker: markerCode === 33 ? '!' : '#', digits: text.slice(marker + 1, end),
    },
    scanned: end,
  };
}

/**
 * Calls `visit` for each reference in `text`, in order, never overlapping. Returning `false` from
 * `visit` stops the scan early.
 */
export function scanReferences(text: string, lenient: boolean, visit: (match: ReferenceMatch) => boolean | void): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    const before = charAt(text, i - 1);
    if (code === 64) { // @
      const boundary = lenient || before === -1 || isSpace(before) || before === 40 || before === 91;
      const match = boundary ? matchMention(text, i, lenient) : null;
      if (match) {
        if (visit(match) === false) return;
        i = match.end;
        continue;
      }
    } else if (code === 35 || code === 33) { // # !
      const boundary = lenient || before === -1 || isSpace(before) || before === 40 || before === 91 || before === 39 || before === 34;
      const match = boundary ? matchShortIssue(text, i, lenient) : null;
      if (match) {
        if (visit(match) === false) return;
        i = match.end;
        continue;
      }
    } else if (isRepoNameChar(code)) {
      const boundary = lenient ? !isRepoNameChar(before) && before !== 47 : before === -1 || isSpace(before) || before === 40 || before === 91;
      if (boundary) {
        const { match, scanned } = matchCrossIssue(text, i, lenient);
        if (match) {
          if (visit(match) === false) return;
          i = match.end;
          continue;
        }
        // Nothing inside the owner run can start a reference: skip it whole to stay linear.
        i = Math.max(i + 1, scanned);
        continue;
      }
    }
    i++;
  }
}

/** Issue numbers longer than this are not indexes any database holds. */
export const MAX_ISSUE_DIGITS = 15;

/** The key the caller resolves: `owner/repo#N`, owner and repo lower-cased, N without leading zeros. */
export function issueKey(owner: string, repo: string, digits: string): string | null {
  if (digits.length > MAX_ISSUE_DIGITS) return null;
  return `${owner.toLowerCase()}/${repo.toLowerCase()}#${Number.parseInt(digits, 10)}`;
}
