// Whether the repository storage (APP_DATA_PATH/repositories, shared by every machine of an
// installation) is there. A marker file written when the first repository is created tells the
// storage apart from an empty directory left where a network mount went away: while it is missing,
// nothing writes repositories to the local disk (they would be lost when the mount comes back), and
// failures answer 503 instead of 500.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { UnavailableError } from './errors.js';
import { repositoriesRoot } from './repositories.js';

const MARKER = '.pullhost-storage';
export const STORAGE_UNAVAILABLE_MESSAGE = 'the repository storage is unavailable, try again shortly';

export function repositoryStorageReachable(config: { APP_DATA_PATH: string }): boolean {
  return existsSync(join(repositoriesRoot(config), MARKER));
}

function writeMarker(root: string): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, MARKER), 'The repositories of a pullhost installation. Its machines check for this file.\n', { flag: 'a' });
}

/**
 * Before a repository is written: the marker must be there, or this must be the installation's
 * first repository (a fresh storage gets its marker now). Otherwise 503.
 */
export async function assertRepositoryStorage(db: Knex, config: { APP_DATA_PATH: string }): Promise<void> {
  if (repositoryStorageReachable(config)) return;
  const [{ n }] = await db('repositories').count({ n: '*' });
  if (Number(n) === 0) return writeMarker(repositoriesRoot(config));
  throw new UnavailableError(STORAGE_UNAVAILABLE_MESSAGE);
}

/**
 * At start-up: storage that holds repositories (made before the marker existed), or any storage of
 * an installation with no repository yet, gets its marker. Returns false when the database knows
 * repositories and the storage shows none: the storage is not mounted.
 */
export async function checkRepositoryStorage(db: Knex, config: { APP_DATA_PATH: string }): Promise<boolean> {
  const root = repositoriesRoot(config);
  if (repositoryStorageReachable(config)) return true;
  const holdsRepositories = existsSync(root) && readdirSync(root).some((entry) => !entry.startsWith('.'));
  const [{ n }] = holdsRepositories ? [{ n: 0 }] : await db('repositories').count({ n: '*' });
  if (!holdsRepositories && Number(n) > 0) return false;
  writeMarker(root);
  return true;
}
