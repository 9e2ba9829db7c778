// Store for organization membership as Gitea's org_user table answers it: a member is anybody in
// one of the organization's teams; whether the membership is public is a row in
// org_public_members (Gitea's is_public), kept only while the user is a member.
import type { Knex } from 'knex';
import { toUserRow, USER_TYPE, type UserRow } from './users.js';

export interface MemberListing {
  /** Only members who made their membership public (anonymous callers and outsiders). */
  publicOnly: boolean;
  /** A restricted member sees public members and the members of their own teams only. */
  teammatesOf?: number | undefined;
}

function memberIdsOf(trx: Knex, orgId: number): Knex.QueryBuilder {
  return trx('team_members as m').join('teams as t', 't.id', 'm.team_id').where('t.org_id', orgId).distinct('m.user_id');
}

function publicRow(trx: Knex, orgId: number): Knex.QueryBuilder {
  return trx('org_public_members as pm').select(1).where('pm.org_id', orgId).whereRaw('pm.user_id = u.id');
}

function membersQuery(trx: Knex, orgId: number, listing: MemberListing): Knex.QueryBuilder {
  const q = trx('users as u').whereIn('u.id', memberIdsOf(trx, orgId));
  if (listing.publicOnly) q.whereExists(publicRow(trx, orgId));
  else if (listing.teammatesOf !== undefined) {
    const doer = listing.teammatesOf;
    q.where((w) => w.whereExists(publicRow(trx, orgId)).orWhereIn('u.id', trx('team_members as tm').join('teams as tt', 'tt.id', 'tm.team_id')
      .where('tt.org_id', orgId).whereIn('tm.team_id', trx('team_members').where('user_id', doer).select('team_id')).select('tm.user_id')));
  }
  return q;
}

export function orgMembersStore(db: Knex) {
  return {
    async count(orgId: number, listing: MemberListing, trx: Knex = db): Promise<number> {
      const row = await membersQuery(trx, orgId, listing).count({ n: 'u.id' }).first();
      return Number(row?.n ?? 0);
    },
    /** One page of members, in the order they became users (Gitea lists org_user rows unordered). */
    async list(orgId: number, listing: MemberListing, page: { limit: number; offset: number }, trx: Knex = db): Promise<UserRow[]> {
      const rows = await membersQuery(trx, orgId, listing).select('u.*').orderBy('u.id').limit(page.limit).offset(page.offset);
      return rows.map((r: Record<string, unknown>) => toUserRow(r)!);
    },
    async isPublicMember(orgId: number, userId: number, trx: Knex = db): Promise<boolean> {
      const row = await trx('org_public_members as pm').where({ 'pm.org_id': orgId, 'pm.user_id': userId })
        .whereIn('pm.user_id', memberIdsOf(trx, orgId)).first('pm.user_id');
      return Boolean(row);
    },
    /** Makes a member's membership public or not; a non-member changes nothing (as in Gitea). */
    async setPublic(orgId: number, userId: number, isPublic: boolean, trx: Knex = db): Promise<void> {
      if (!isPublic) {
        await trx('org_public_members').where({ org_id: orgId, user_id: userId }).delete();
        return;
      }
      const member = await memberIdsOf(trx, orgId).where('m.user_id', userId).first();
      // Concurrent requests publicize the same member: the row is there once, the others change nothing.
      if (member) await trx('org_public_members').insert({ org_id: orgId, user_id: userId }).onConflict(['org_id', 'user_id']).ignore();
    },
    /** Drops the public flag of a user who is no longer in any of the organization's teams. */
    async forgetIfLeft(orgId: number, userId: number, trx: Knex = db): Promise<void> {
      const still = await memberIdsOf(trx, orgId).where('m.user_id', userId).first();
      if (!still) await trx('org_public_members').where({ org_id: orgId, user_id: userId }).delete();
    },
    /**
     * Organizations `userId` belongs to, by name: only public memberships unless
     * `includeConcealed`, and only organizations of the given visibilities.
     */
    async orgsOf(userId: number, filter: { includeConcealed: boolean; visibilities: string[] }, page: { limit: number; offset: number }, trx: Knex = db): Promise<{ orgs: UserRow[]; total: number }> {
      const base = () => {
        const q = trx('users as u').where('u.type', USER_TYPE.organization).whereIn('u.visibility', filter.visibilities)
          .whereIn('u.id', trx('team_members as m').join('teams as t', 't.id', 'm.team_id').where('m.user_id', userId).select('t.org_id'));
        if (!filter.includeConcealed) q.whereIn('u.id', trx('org_public_members').where('user_id', userId).select('org_id'));
        return q;
      };
      const [count, rows] = await Promise.all([
        base().count({ n: 'u.id' }).first(),
        base().select('u.*').orderBy('u.lower_name').limit(page.limit).offset(page.offset),
      ]);
      return { orgs: rows.map((r: Record<string, unknown>) => toUserRow(r)!), total: Number(count?.n ?? 0) };
    },
    /** Number of organizations the user is a member of (Gitea refuses to delete such users). */
    async orgCountOf(userId: number, trx: Knex = db): Promise<number> {
      const row = await trx('team_members as m').join('teams as t', 't.id', 'm.team_id').where('m.user_id', userId).countDistinct({ n: 't.org_id' }).first();
      return Number(row?.n ?? 0);
    },
    /** The ids of the organizations the user is a member of. */
    async orgIdsOf(userId: number, trx: Knex = db): Promise<number[]> {
      const rows = await trx('team_members as m').join('teams as t', 't.id', 'm.team_id').where('m.user_id', userId).distinct('t.org_id');
      return rows.map((r: { org_id: unknown }) => Number(r.org_id));
    },
  };
}

export type OrgMembersStore = ReturnType<typeof orgMembersStore>;
