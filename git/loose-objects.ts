// Writing one object into a bare repository's object store without running git, as git writes a
// loose object: zlib-deflated "<type> <size>\0<content>" at objects/<2 hex>/<38 hex>, written under
// a temporary name in that folder and linked into place, read-only. A merge whose tree merge-tree
// has just written writes its commit this way instead of spawning `git commit-tree` (git/objects.ts,
// commitTreeInStore): one process per merge fewer.
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { link, mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const deflateAsync = promisify(deflate);

export type LooseObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** The SHA-1 name git gives an object with this content. */
export function objectName(type: LooseObjectType, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

const exists = (path: string) => stat(path).then(() => true, () => false);

/**
 * Writes the object and returns its name; null when `repoPath` is not a bare repository with an
 * `objects` folder (the caller runs git instead). Only for SHA-1 repositories: the caller checks.
 * An object already present is left as it is (same name, same content). The file is not fsynced,
 * as git's default core.fsync leaves loose objects out.
 */
export async function writeLooseObject(repoPath: string, type: LooseObjectType, content: Buffer): Promise<string | null> {
  const objects = join(repoPath, 'objects');
  if (!(await exists(objects))) return null;
  const name = objectName(type, content);
  const dir = join(objects, name.slice(0, 2));
  const path = join(dir, name.slice(2));
  if (await exists(path)) return name;
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, await deflateAsync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content])), { mode: 0o444, flag: 'wx' });
  try {
    await link(tmp, path);
  } catch (err) {
    // Another writer got there first: the same name is the same content.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp).catch(() => {});
  }
  return name;
}
