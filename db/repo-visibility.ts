// Which repositories a viewer may see, as SQL: the same answer as core/permissions.ts
// repoAccessMode(...) !== 'none', for lists and searches that must page and count in the database
// (test/people/visibility.test.ts checks the two agree on every pairing of a set of accounts and
// repositories). Expects the repository as `r` and its owner as `o` in the query.
import type { Knex } from 'knex';
import type { UserRow } from './users.js';

const USER = 0;
const ORGANIZATION = 1;

/** Repositories of `o` (an organization) that `userId` reaches through one of its teams. */
export function teamReachesRepo(q: Knex.QueryBuilder, userId: number | Knex.Raw, repoColumn = 'r.id', orgColumn = 'o.id'): Knex.QueryBuilder {
  return q.select(1).from('teams as vt').join('team_members as vm', 'vm.team_id', 'vt.id')
    .whereRaw(`vt.org_id = ${orgColumn}`).andWhere('vm.user_id', userId as number)
    .andWhere((w) => w.where('vt.includes_all_repositories', true)
      .orWhereExists((e) => e.select(1).from('team_repos as vtr').whereRaw('vtr.team_id = vt.id').andWhereRaw(`vtr.repo_id = ${repoColumn}`)));
}

/** Whether `userId` is in any team of the organization in `orgColumn`. */
export function memberOfOrg(q: Knex.QueryBuilder, userId: number, orgColumn = 'o.id'): Knex.QueryBuilder {
  return q.select(1).from('teams as mt').join('team_members as mm', 'mm.team_id', 'mt.id')
    .whereRaw(`mt.org_id = ${orgColumn}`).andWhere('mm.user_id', userId);
}

/** Restricts `q` (with `r` and `o`) to what `viewer` may read. */
export function whereRepoVisibleTo(q: Knex.QueryBuilder, viewer: UserRow | null): Knex.QueryBuilder {
  if (!viewer) return q.where('r.is_private', false).andWhere('o.visibility', 'public');
  if (viewer.is_admin) return q;
  const id = viewer.id;
  return q.where((w) => {
    w.where((own) => own.where('o.type', USER).andWhere('o.id', id));
    // Public repositories of public and limited owners, for everybody but restricted users.
    if (!viewer.restricted) w.orWhere((pub) => pub.where('r.is_private', false).whereIn('o.visibility', ['public', 'limited']));
    w.orWhere((team) => team.where('o.type', ORGANIZATION).whereExists((e) => teamReachesRepo(e, id)));
    // A private organization's public repositories are readable by all of its members.
    w.orWhere((member) => member.where('o.type', ORGANIZATION).andWhere('o.visibility', 'private').andWhere('r.is_private', false)
      .whereExists((e) => memberOfOrg(e, id)));
    w.orWhereExists((e) => e.select(1).from('collaborations as vc').whereRaw('vc.repo_id = r.id').andWhere('vc.user_id', id));
  });
}
