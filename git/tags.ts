// Tags: listing them with what clients show (tagger or committer, message, the tagged commit),
// reading an annotated tag object, and writing one for a new tag (core/tags.ts writes the reference,
// journalled, by compare-and-swap).
import { cleanupMessage, gitTimestamp, identityEnv, type Identity } from './objects.js';
import { parseIdentLine, type CommitSignatureLine } from './commit-parse.js';
import { assertValidRefName, isValidSha } from './refs.js';
import { gitOk, runGit } from './runner.js';

export interface TagInfo {
  name: string;
  /** The tag object for an annotated tag, the commit for a lightweight one. */
  id: string;
  /** The object the tag points at (the commit for a lightweight tag). */
  target: string;
  annotated: boolean;
  /** The tagger of an annotated tag, the committer of a lightweight tag's commit. */
  creator: CommitSignatureLine;
  /** The annotated tag's message, or the commit's, without any signature. */
  message: string;
  signature: string;
}

// Seven NUL-terminated fields per reference, then for-each-ref's newline.
const FORMAT = '%(objectname)%00%(objecttype)%00%(object)%00%(refname)%00%(creator)%00%(contents)%00%(contents:signature)%00';
const FIELDS = 7;

/** Parses the FORMAT output; exported for tests. */
export function parseTagRecords(out: string): TagInfo[] {
  const tokens = out.split('\0');
  const tags: TagInfo[] = [];
  for (let i = 0; i + FIELDS <= tokens.length; i += FIELDS) {
    const [id, type, object, ref, creator, contents, signature] = tokens.slice(i, i + FIELDS) as string[];
    const sha = id!.replace(/^\n/, '');
    if (!isValidSha(sha)) continue;
    const annotated = type === 'tag';
    const message = signature && contents!.endsWith(signature) ? contents!.slice(0, contents!.length - signature.length) : contents!;
    tags.push({
      name: ref!.slice('refs/tags/'.length),
      id: sha,
      target: annotated ? object! : sha,
      annotated,
      creator: parseIdentLine(creator!),
      message,
      signature: signature!,
    });
  }
  return tags;
}

/** Every tag, newest first by its creator's date (Gitea's order), then by name. */
export async function listTags(repoPath: string): Promise<TagInfo[]> {
  const out = await gitOk(['for-each-ref', `--format=${FORMAT}`, '--end-of-options', 'refs/tags/'], { cwd: repoPath });
  return parseTagRecords(out).sort((a, b) => b.creator.timestamp - a.creator.timestamp || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One tag by its name (the part after refs/tags/), or null. */
export async function findTag(repoPath: string, name: string): Promise<TagInfo | null> {
  const ref = `refs/tags/${name}`;
  assertValidRefName(ref);
  const out = await gitOk(['for-each-ref', `--format=${FORMAT}`, '--end-of-options', ref], { cwd: repoPath });
  return parseTagRecords(out).find((t) => t.name === name) ?? null;
}

export interface AnnotatedTagObject {
  sha: string;
  name: string;
  object: string;
  objectType: string;
  tagger: CommitSignatureLine;
  message: string;
  signature: string;
}

/** Reads the annotated tag object `sha`; null when it is not a tag object. */
export async function readTagObject(repoPath: string, sha: string): Promise<AnnotatedTagObject | null> {
  if (!isValidSha(sha)) return null;
  const r = await runGit(['cat-file', 'tag', sha], { cwd: repoPath });
  if (r.exitCode !== 0) return null;
  const raw = r.stdout;
  const split = raw.indexOf('\n\n');
  const headers = new Map<string, string>();
  for (const line of (split === -1 ? raw : raw.slice(0, split)).split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && !headers.has(line.slice(0, space))) headers.set(line.slice(0, space), line.slice(space + 1));
  }
  let message = split === -1 ? '' : raw.slice(split + 2);
  let signature = '';
  const sigStart = message.search(/^-----BEGIN (PGP|SSH) SIGNATURE-----$/m);
  if (sigStart !== -1) {
    signature = message.slice(sigStart);
    message = message.slice(0, sigStart);
  }
  return {
    sha,
    name: headers.get('tag') ?? '',
    object: headers.get('object') ?? '',
    objectType: headers.get('type') ?? '',
    tagger: parseIdentLine(headers.get('tagger') ?? ''),
    message,
    signature,
  };
}

/**
 * What tag `name` on `commit` names: with a message, a new annotated tag object (written now),
 * else the commit itself (a lightweight tag). The reference is not written.
 */
export async function writeTagObject(repoPath: string, name: string, commit: string, opts: { message?: string; tagger?: Identity } = {}): Promise<string> {
  assertValidRefName(`refs/tags/${name}`);
  // git tag refuses such names too; other tools would read them as options.
  if (name.startsWith('-')) throw new TypeError(`invalid tag name: ${JSON.stringify(name)}`);
  if (!isValidSha(commit)) throw new TypeError(`invalid commit: ${commit}`);
  const message = opts.message ?? '';
  if (message.length === 0) return commit;
  if (!opts.tagger) throw new TypeError('an annotated tag needs a tagger');
  const env = identityEnv({ author: opts.tagger, committer: opts.tagger });
  const when = gitTimestamp(opts.tagger.date instanceof Date ? opts.tagger.date : new Date()).slice(1);
  const body = `object ${commit}\ntype commit\ntag ${name}\ntagger ${env.GIT_COMMITTER_NAME} <${env.GIT_COMMITTER_EMAIL}> ${when}\n\n${cleanupMessage(message)}`;
  return (await gitOk(['mktag'], { cwd: repoPath, input: body })).trim();
}
