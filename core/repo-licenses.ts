// A repository's `licenses` (Gitea's repo_license rows): what its default branch's LICENSE file
// holds, read when the repository is made with a license and again whenever the default branch
// moves (core/push.ts branchMoved), skipped while the file's blob is unchanged.
import type { Knex } from 'knex';
import { detectLicenses } from './license-detect.js';
import type { RepoRow } from '../db/repos.js';
import { blobSize, branchRef, readBlob, treeEntryAt } from '../git/index.js';

// Gitea's LicenseFileName: only this file, at the root.
const LICENSE_FILE = 'LICENSE';
/** Larger files are not license texts worth classifying. */
const MAX_LICENSE_BYTES = 512 * 1024;

/** The stored list, as the repository JSON shows it. */
export function licensesOf(repo: Pick<RepoRow, 'licenses'>): string[] {
  try {
    const parsed: unknown = JSON.parse(repo.licenses ?? '[]');
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

async function licenseBlob(path: string, branch: string): Promise<string> {
  const entry = await treeEntryAt(path, branchRef(branch), LICENSE_FILE);
  return entry?.type === 'blob' ? entry.sha : '';
}

async function store(db: Knex, repoId: number, licenses: string[], blob: string): Promise<void> {
  await db('repositories').where({ id: repoId }).update({ licenses: JSON.stringify(licenses), license_blob_id: blob });
}

/** A repository just made with a license template: that license, without classifying the text. */
export async function recordTemplateLicense(db: Knex, repoId: number, path: string, branch: string, license: string): Promise<void> {
  const blob = await licenseBlob(path, branch);
  if (blob) await store(db, repoId, [license], blob);
}

/** Reads the default branch's LICENSE again when its blob changed (or went away). */
export async function refreshRepoLicenses(db: Knex, repo: Pick<RepoRow, 'id' | 'default_branch' | 'license_blob_id'>, path: string): Promise<void> {
  const blob = await licenseBlob(path, repo.default_branch);
  if (blob === (repo.license_blob_id ?? '')) return;
  let licenses: string[] = [];
  if (blob && (await blobSize(path, blob)) <= MAX_LICENSE_BYTES) licenses = detectLicenses((await readBlob(path, blob)).toString('utf8'), blob);
  await store(db, repo.id, licenses, blob);
}
