// Pure parsing of raw commit objects (the bytes of `git cat-file commit`). No I/O here so it can be
// tested with literal input and reused for batch reads.

export interface CommitSignatureLine {
  name: string;
  email: string;
  /** RFC 3339 in the commit's own time zone ("Z" when the offset is zero), as Gitea's JSON shows it. */
  date: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** The offset as git stores it, e.g. "+0200". */
  timezone: string;
  /** The date in git's raw form ("@<seconds> <offset>"), to recreate the same date in a new commit. */
  gitDate: string;
}

export interface GpgSignature {
  /** The armoured signature (gpgsig header without its continuation spaces). */
  signature: string;
  /** The signed bytes: the commit object without the signature header. */
  payload: string;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  author: CommitSignatureLine;
  committer: CommitSignatureLine;
  message: string;
  /** The encoding header, when the commit declares one other than UTF-8. */
  encoding?: string;
  signature: GpgSignature | null;
}

/** RFC 3339 text for a git timestamp and "+hhmm" offset, keeping the offset. */
export function formatGitDate(timestamp: number, timezone: string): string {
  const m = /^([+-])(\d{2})(\d{2})$/.exec(timezone);
  const sign = m?.[1] === '-' ? -1 : 1;
  const offsetMinutes = m ? sign * (Number(m[2]) * 60 + Number(m[3])) : 0;
  const local = new Date((timestamp + offsetMinutes * 60) * 1000);
  if (Number.isNaN(local.getTime())) return '0001-01-01T00:00:00Z';
  const base = local.toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${base}Z`;
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${base}${offsetMinutes < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** Parses "Name <email> 1700000000 +0200"; tolerant of malformed lines found in old repositories. */
export function parseIdentLine(line: string): CommitSignatureLine {
  const open = line.indexOf('<');
  const close = line.lastIndexOf('>');
  let name = line;
  let email = '';
  let rest = '';
  if (open !== -1 && close > open) {
    name = line.slice(0, open).trim();
    email = line.slice(open + 1, close);
    rest = line.slice(close + 1).trim();
  }
  const m = /^(-?\d+)(?:\s+([+-]\d{4}))?/.exec(rest);
  const timestamp = m ? Number(m[1]) : 0;
  const timezone = m?.[2] ?? '+0000';
  return {
    name,
    email,
    timestamp,
    timezone,
    date: formatGitDate(timestamp, timezone),
    gitDate: `@${timestamp} ${timezone}`,
  };
}

/** Parses the text of a commit object. */
export function parseCommitObject(sha: string, raw: string): CommitInfo {
  const headerEnd = raw.indexOf('\n\n');
  const headerText = headerEnd === -1 ? raw : raw.slice(0, headerEnd);
  const message = headerEnd === -1 ? '' : raw.slice(headerEnd + 2);
  const lines = headerText.split('\n');
  let tree = '';
  const parents: string[] = [];
  let author: CommitSignatureLine | undefined;
  let committer: CommitSignatureLine | undefined;
  let encoding: string | undefined;
  let signature: string | undefined;
  const unsignedHeaders: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const space = line.indexOf(' ');
    const key = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    // A multi-line header (gpgsig, mergetag) continues on lines starting with one space.
    const continuation: string[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.startsWith(' ')) continuation.push(lines[++i]!.slice(1));
    const full = [value, ...continuation].join('\n');
    if (key === 'gpgsig' || key === 'gpgsig-sha256') {
      signature ??= full;
      continue;
    }
    unsignedHeaders.push(line, ...continuation.map((c) => ` ${c}`));
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = parseIdentLine(value);
    else if (key === 'committer') committer = parseIdentLine(value);
    else if (key === 'encoding') encoding = value;
  }
  const empty = parseIdentLine('');
  const info: CommitInfo = {
    sha,
    tree,
    parents,
    author: author ?? empty,
    committer: committer ?? author ?? empty,
    message,
    signature: signature === undefined
      ? null
      : { signature: signature.endsWith('\n') ? signature : `${signature}\n`, payload: `${unsignedHeaders.join('\n')}\n\n${message}` },
  };
  if (encoding !== undefined && encoding.toLowerCase() !== 'utf-8') info.encoding = encoding;
  return info;
}

/**
 * Splits the output of `git cat-file --batch` ("<sha> <type> <size>\n<bytes>\n" per object, or
 * "<name> missing\n") into commits. Sizes are in bytes, so this works on the raw Buffer.
 */
export function parseCatFileBatch(out: Buffer): CommitInfo[] {
  const commits: CommitInfo[] = [];
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(0x0a, pos);
    if (nl === -1) break;
    const header = out.toString('utf8', pos, nl).split(' ');
    pos = nl + 1;
    if (header.length !== 3) throw new Error(`object not found: ${header[0]}`);
    const [sha, type, sizeText] = header as [string, string, string];
    const size = Number(sizeText);
    const body = out.toString('utf8', pos, pos + size);
    pos += size + 1;
    if (type !== 'commit') throw new Error(`${sha} is a ${type}, not a commit`);
    commits.push(parseCommitObject(sha, body));
  }
  return commits;
}
