// What every payload shares: the repository as Gitea converts it for a hook (with the permission
// Gitea's notifier names for that event), the sender, and the JSON text Gitea sends.
import type { Knex } from 'knex';
import { repoAccessMode, type AccessMode, type RepoContext } from '../../permissions.js';
import { workInProgressPrefixes } from '../../pulls/wip.js';
import { loadApiRepo, type ApiRepository } from '../../wire/repo.js';
import { toApiUser, type ApiUser } from '../../wire/user.js';
import type { PullSerializerDeps } from '../../wire/pull.js';
import { reposStore } from '../../../db/repos.js';
import { usersStore, type UserRow } from '../../../db/users.js';

export interface PayloadDeps {
  db: Knex;
  config: { APP_URL: string; APP_DATA_PATH: string; WORK_IN_PROGRESS_PREFIXES: string };
}

/** Whose permission the payload's `repository.permissions` shows (Gitea's notifier, event by event). */
export type RepoPermissionOf = { mode: AccessMode } | { user: UserRow | null };

/**
 * Gitea's ToUserWithAccessMode with a mode above none shows an owner as to a signed-in stranger
 * (the real address unless kept private, no private fields): a viewer who is nobody in particular.
 */
const SIGNED_STRANGER = { id: 0, is_admin: false } as UserRow;

export class PayloadContext {
  private readonly users = new Map<number, Promise<UserRow | undefined>>();
  // One dispatch batch converts a repository once per permission: many events of one repository
  // in a burst share it (its counters may be a batch old).
  private readonly repositories = new Map<AccessMode, Promise<ApiRepository>>();
  private readonly modes = new Map<number, Promise<AccessMode>>();

  private constructor(readonly deps: PayloadDeps, readonly view: { repo: RepoContext['repo']; owner: UserRow }) {}

  /** The context of a repository's events; null when the repository is gone. */
  static async forRepository(deps: PayloadDeps, repoId: number): Promise<PayloadContext | null> {
    const repo = await reposStore(deps.db).byId(repoId);
    const owner = repo ? await usersStore(deps.db).byId(repo.owner_id) : undefined;
    return repo && owner ? new PayloadContext(deps, { repo, owner }) : null;
  }

  get appUrl(): string {
    return this.deps.config.APP_URL;
  }

  get repoHtmlUrl(): string {
    return `${this.appUrl}${this.view.owner.name}/${this.view.repo.name}`;
  }

  user(id: number | null | undefined): Promise<UserRow | undefined> {
    if (!id) return Promise.resolve(undefined);
    let found = this.users.get(id);
    if (!found) this.users.set(id, (found = usersStore(this.deps.db).byId(id)));
    return found;
  }

  modeOf(user: UserRow | null): Promise<AccessMode> {
    const key = user?.id ?? 0;
    let mode = this.modes.get(key);
    if (!mode) this.modes.set(key, (mode = repoAccessMode(this.deps.db, this.view.repo, this.view.owner, user)));
    return mode;
  }

  /** The repository as the API shows it to `viewer`, for serializers that take a RepoContext. */
  async repoContextFor(viewer: UserRow | null): Promise<RepoContext> {
    return { ...this.view, mode: await this.modeOf(viewer) };
  }

  /** Gitea's convert.ToRepo(repo, permission), with counters and the parent of a fork. */
  async repository(permission: RepoPermissionOf): Promise<ApiRepository> {
    const mode = 'mode' in permission ? permission.mode : await this.modeOf(permission.user);
    let json = this.repositories.get(mode);
    if (!json) {
      const viewer = mode === 'none' ? null : SIGNED_STRANGER;
      this.repositories.set(mode, (json = loadApiRepo(this.deps, this.view.repo, viewer, this.appUrl, { owner: this.view.owner, mode })));
    }
    return json;
  }

  /** Gitea's convert.ToUser(user, nil): as seen by nobody in particular. */
  async sender(id: number | null | undefined): Promise<ApiUser | null> {
    const user = await this.user(id);
    return user ? toApiUser(user, null, this.appUrl) : null;
  }

  pullDeps(): PullSerializerDeps {
    return { db: this.deps.db, config: this.deps.config, wipPrefixes: workInProgressPrefixes(this.deps.config) };
  }
}

/**
 * The payload's text as Gitea sends it: indented by two spaces, with `<`, `>`, `&` and the line
 * separators escaped as Go's encoder escapes them (the signature is over these exact bytes).
 */
export function payloadText(payload: unknown): string {
  return JSON.stringify(payload, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
