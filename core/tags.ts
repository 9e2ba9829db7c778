// Tags of a hosted repository: create (lightweight, or annotated when a message is given) at a
// target commit, and delete. Names are compared without case for clashes, as Gitea's release table
// compares them. Protected tags (core/tag-protection.ts) are refused to those not allowed.
import { refConflict } from './branch-write.js';
import { resolveRevision } from './code-refs.js';
import { ConflictError, NotFoundError, UnprocessableError, storageFailure } from './errors.js';
import type { RepoContext } from './permissions.js';
import { TAG_PROTECTED_CREATE, TAG_PROTECTED_DELETE, tagChangeAllowed } from './tag-protection.js';
import { repoDiskPath } from './repositories.js';
import type { Knex } from 'knex';
import type { UserRow } from '../db/users.js';
import { deleteRef, isValidRefName, listTags, updateRef, writeTagObject, zeroSha, type TagInfo } from '../git/index.js';
import { announcePush, journalledWrite } from './push-journal.js';

export interface TagDeps {
  db: Knex;
  config: { APP_DATA_PATH: string };
}

/**
 * Who the server signs its annotated tags as: Gitea creates them with its own git identity, not
 * the doer's (its git config's user.name and user.email).
 */
export const SERVER_TAGGER = { name: 'Gitea', email: 'gitea@fake.local' } as const;

/**
 * git's rules for a tag name (refs/tags/<name> must be a valid reference, no leading '-', not
 * HEAD), and not "@", which git reads as HEAD wherever a revision is expected.
 */
export function isValidTagName(name: string): boolean {
  return name.length > 0 && !name.startsWith('-') && name !== 'HEAD' && name !== '@' && isValidRefName(`refs/tags/${name}`);
}

export async function createRepoTag(deps: TagDeps, ctx: RepoContext, doer: UserRow, input: { name: string; message?: string; target?: string }): Promise<TagInfo> {
  const path = repoDiskPath(deps.config, ctx.owner.name, ctx.repo.name);
  const target = input.target || ctx.repo.default_branch;
  const commit = ctx.repo.is_empty ? null : await resolveRevision(path, target);
  if (!commit) throw new NotFoundError(`target not found: object does not exist [id: ${target}, rel_path: ]`);
  const existing = await listTags(path);
  if (existing.some((t) => t.name.toLowerCase() === input.name.toLowerCase())) throw new ConflictError(`tag already exists [name: ${input.name}]`);
  if (!(await tagChangeAllowed(deps.db, ctx.repo.id, input.name, doer))) throw new UnprocessableError(TAG_PROTECTED_CREATE);
  if (!isValidTagName(input.name)) throw new UnprocessableError(`release tag name is not valid [tag_name: ${input.name}]`);
  const ref = `refs/tags/${input.name}`;
  const tagged = await writeTagObject(path, input.name, commit, { message: input.message, tagger: { ...SERVER_TAGGER, date: new Date() } })
    .catch((err: Error) => { throw storageFailure(err) ?? err; });
  const created = [{ ref, oldSha: zeroSha(tagged), newSha: tagged }];
  const journalId = await journalledWrite(deps.db, ctx.repo.id, doer.id, created, () =>
    updateRef(path, ref, tagged, null, { reason: 'tag created' }).catch((err: Error) => { throw storageFailure(err) ?? refConflict(err, `tag ${input.name}`); }));
  if (journalId === null) throw new ConflictError(`tag already exists [name: ${input.name}]`);
  await announcePush(deps.db, journalId, ctx.repo.id, doer.id, created);
  const tag = (await listTags(path)).find((t) => t.name === input.name);
  if (!tag) throw new NotFoundError(`tag doesn't exist: ${input.name}`);
  return tag;
}

export async function deleteRepoTag(deps: TagDeps, ctx: RepoContext, doer: UserRow, name: string): Promise<void> {
  const path = repoDiskPath(deps.config, ctx.owner.name, ctx.repo.name);
  const tag = ctx.repo.is_empty ? undefined : (await listTags(path)).find((t) => t.name.toLowerCase() === name.toLowerCase());
  if (!tag) throw new NotFoundError();
  if (!(await tagChangeAllowed(deps.db, ctx.repo.id, tag.name, doer))) throw new UnprocessableError(TAG_PROTECTED_DELETE);
  const deleted = [{ ref: `refs/tags/${tag.name}`, oldSha: tag.id, newSha: zeroSha(tag.id) }];
  const journalId = await journalledWrite(deps.db, ctx.repo.id, doer.id, deleted, () => deleteRef(path, `refs/tags/${tag.name}`, tag.id, { reason: 'tag deleted' }));
  if (journalId === null) throw new ConflictError('The tag has changed meanwhile; try again.');
  await announcePush(deps.db, journalId, ctx.repo.id, doer.id, deleted);
}
