// A pure, single-pass parser of `git diff` output into per-file records with Gitea's limits
// (services/gitdiff ParsePatch): it runs in the worker-thread pool, so no Node APIs and no I/O.
import { readQuoted, unquotePath } from './quoted-path.js';

export type DiffFileStatus = 'added' | 'deleted' | 'changed' | 'renamed' | 'copied' | 'unchanged';

export interface ParsedDiffFile {
  filename: string;
  /** The source path of a rename or copy. */
  previousFilename?: string;
  status: DiffFileStatus;
  additions: number;
  deletions: number;
  changes: number;
  isBinary: boolean;
  isSubmodule: boolean;
  /** Gitea's IsIncomplete: the file hit the line limit or had a line longer than the limit. */
  truncated: boolean;
  oldMode?: string;
  newMode?: string;
}

export interface DiffLimits {
  /** Lines (added, deleted and context) kept per file; -1 for no limit. Gitea: MAX_GIT_DIFF_LINES. */
  maxLines: number;
  /** Longest line kept, in UTF-8 bytes with its +/-/space prefix. Gitea: MAX_GIT_DIFF_LINE_CHARACTERS. */
  maxLineCharacters: number;
}

interface FileState {
  oldName: string;
  newName: string;
  namesKnown: boolean;
  kind: 'change' | 'add' | 'delete' | 'rename' | 'copy';
  additions: number;
  deletions: number;
  lines: number;
  isBinary: boolean;
  isSubmodule: boolean;
  truncated: boolean;
  oldMode?: string;
  newMode?: string;
}

const DIFF_HEAD = 'diff --git ';

/** UTF-8 length of a line, computed only when the UTF-16 length leaves the answer open. */
function exceedsBytes(line: string, max: number): boolean {
  if (line.length > max) return true; // every UTF-16 unit is at least one UTF-8 byte
  if (line.length * 3 <= max) return false; // every UTF-16 unit is at most three bytes
  let bytes = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { bytes += 4; i++; }
    else bytes += 3;
    if (bytes > max) return true;
  }
  return false;
}

/** Splits "a/X b/Y" (either side possibly quoted) from a `diff --git` line. */
function parseHeadNames(rest: string): { oldName: string; newName: string; known: boolean } {
  if (rest.startsWith('"')) {
    const a = readQuoted(rest, 0);
    if (a && rest[a.end] === ' ') {
      const bText = rest.slice(a.end + 1);
      return { oldName: stripPrefix(a.value), newName: stripPrefix(unquotePath(bText)), known: true };
    }
  }
  if (rest.endsWith('"')) {
    const open = rest.lastIndexOf(' "');
    const b = open === -1 ? null : readQuoted(rest, open + 1);
    if (b && b.end === rest.length) {
      return { oldName: stripPrefix(rest.slice(0, open)), newName: stripPrefix(b.value), known: true };
    }
  }
  // Unquoted and unchanged name: "a/X b/X" is exactly symmetric around its middle space.
  if ((rest.length - 1) % 2 === 0) {
    const half = (rest.length - 1) / 2;
    const left = rest.slice(0, half);
    const right = rest.slice(half + 1);
    if (rest[half] === ' ' && left.slice(2) === right.slice(2)) {
      return { oldName: left.slice(2), newName: right.slice(2), known: true };
    }
  }
  // A rename: the names come from the "rename from/to" lines; this is only a first guess.
  const split = rest.indexOf(' b/');
  if (split === -1) return { oldName: stripPrefix(rest), newName: stripPrefix(rest), known: false };
  return { oldName: stripPrefix(rest.slice(0, split)), newName: rest.slice(split + 3), known: false };
}

function stripPrefix(name: string): string {
  return name.startsWith('a/') || name.startsWith('b/') ? name.slice(2) : name;
}

/** "--- a/name\t" → "name"; null for /dev/null. */
function markerName(value: string): string | null {
  const v = value.endsWith('\t') ? value.slice(0, -1) : value;
  if (v === '/dev/null') return null;
  return stripPrefix(unquotePath(v));
}

function toRecord(f: FileState): ParsedDiffFile {
  let status: DiffFileStatus;
  // Gitea's ToChangedFile order: deleted, added, copied, renamed, then "unchanged" when no lines
  // changed (mode-only and binary changes), otherwise "changed".
  if (f.kind === 'delete') status = 'deleted';
  else if (f.kind === 'add') status = 'added';
  else if (f.kind === 'copy') status = 'copied';
  else if (f.kind === 'rename') status = 'renamed';
  else if (f.additions === 0 && f.deletions === 0) status = 'unchanged';
  else status = 'changed';
  const rec: ParsedDiffFile = {
    filename: f.newName,
    status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    isBinary: f.isBinary,
    isSubmodule: f.isSubmodule,
    truncated: f.truncated,
  };
  if ((f.kind === 'rename' || f.kind === 'copy') && f.oldName !== f.newName) rec.previousFilename = f.oldName;
  if (f.oldMode !== undefined) rec.oldMode = f.oldMode;
  if (f.newMode !== undefined) rec.newMode = f.newMode;
  return rec;
}

/**
 * Parses unified diff text (`git diff`, with or without --binary) into one record per file.
 * Additions and deletions are counted in full, as Gitea does; the limits only mark a file truncated.
 * Linear in the input length.
 */
export function parseUnifiedDiff(text: string, limits: DiffLimits): ParsedDiffFile[] {
  const files: ParsedDiffFile[] = [];
  let cur: FileState | null = null;
  let inHunks = false;
  const { maxLines, maxLineCharacters } = limits;
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    const line = text.slice(pos, nl);
    pos = nl + 1;

    if (line.startsWith(DIFF_HEAD)) {
      if (cur) files.push(toRecord(cur));
      const names = parseHeadNames(line.slice(DIFF_HEAD.length));
      cur = {
        oldName: names.oldName, newName: names.newName, namesKnown: names.known, kind: 'change',
        additions: 0, deletions: 0, lines: 0, isBinary: false, isSubmodule: false, truncated: false,
      };
      inHunks = false;
      continue;
    }
    if (!cur) continue; // text before the first file header (e.g. a format-patch preamble)

    if (inHunks) {
      const c = line.charCodeAt(0);
      if (c === 0x2b /* + */ || c === 0x2d /* - */ || c === 0x20 /* space */) {
        if (c === 0x2b) cur.additions++;
        else if (c === 0x2d) cur.deletions++;
        cur.lines++;
        if (maxLines > -1 && cur.lines >= maxLines) cur.truncated = true;
        else if (exceedsBytes(line, maxLineCharacters)) cur.truncated = true;
      } else if (c === 0x40 /* @ */ || c === 0x5c /* \ */) {
        if (maxLines > -1 && cur.lines >= maxLines) cur.truncated = true;
      } else if (line.length > 0) {
        // Something after the hunks that is not a new file (e.g. a format-patch signature).
        inHunks = false;
      }
      continue;
    }

    if (line.startsWith('old mode ')) cur.oldMode = line.slice(9).trim();
    else if (line.startsWith('new mode ')) cur.newMode = line.slice(9).trim();
    else if (line.startsWith('new file mode ')) { cur.kind = 'add'; cur.newMode = line.slice(14).trim(); }
    else if (line.startsWith('deleted file mode ')) { cur.kind = 'delete'; cur.oldMode = line.slice(18).trim(); }
    else if (line.startsWith('rename from ')) { cur.kind = 'rename'; cur.oldName = unquotePath(line.slice(12)); }
    else if (line.startsWith('rename to ')) { cur.kind = 'rename'; cur.newName = unquotePath(line.slice(10)); cur.namesKnown = true; }
    else if (line.startsWith('copy from ')) { cur.kind = 'copy'; cur.oldName = unquotePath(line.slice(10)); }
    else if (line.startsWith('copy to ')) { cur.kind = 'copy'; cur.newName = unquotePath(line.slice(8)); cur.namesKnown = true; }
    else if (line.startsWith('Binary files ') || line === 'GIT binary patch') cur.isBinary = true;
    else if (line.startsWith('--- ')) {
      if (!cur.namesKnown) cur.oldName = markerName(line.slice(4)) ?? cur.oldName;
    } else if (line.startsWith('+++ ')) {
      if (!cur.namesKnown) cur.newName = markerName(line.slice(4)) ?? cur.oldName;
      cur.namesKnown = true;
      inHunks = true;
    }
    if (line.startsWith('index ') || line.startsWith('new file mode ') || line.startsWith('deleted file mode ')
      || line.startsWith('old mode ') || line.startsWith('new mode ')) {
      if (line.endsWith(' 160000')) cur.isSubmodule = true;
    }
  }
  if (cur) files.push(toRecord(cur));
  return files;
}
