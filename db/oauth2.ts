// Stores of the OAuth2 provider: applications, grants and authorization codes. Only keyed hashes of
// client secrets and codes are kept.
import type { Knex } from 'knex';
import { nowUnix } from './time.js';

export interface OAuth2ApplicationRow {
  id: number;
  user_id: number;
  name: string;
  client_id: string;
  client_secret_hash: string;
  redirect_uris: string[];
  confidential_client: boolean;
  skip_secondary_authorization: boolean;
  created_unix: number;
  updated_unix: number;
}

export interface OAuth2GrantRow {
  id: number;
  user_id: number;
  application_id: number;
  counter: number;
  scope: string;
  nonce: string;
  created_unix: number;
  updated_unix: number;
}

export interface OAuth2CodeRow {
  id: number;
  grant_id: number;
  code_hash: string;
  code_challenge: string;
  code_challenge_method: string;
  redirect_uri: string;
  valid_until: number;
  used: boolean;
}

function parseUris(raw: unknown): string[] {
  try {
    const parsed = JSON.parse(String(raw)) as unknown;
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function toApplication(raw: Record<string, unknown>): OAuth2ApplicationRow {
  return {
    id: Number(raw.id),
    user_id: Number(raw.user_id),
    name: String(raw.name),
    client_id: String(raw.client_id),
    client_secret_hash: String(raw.client_secret_hash),
    redirect_uris: parseUris(raw.redirect_uris),
    confidential_client: Boolean(raw.confidential_client),
    skip_secondary_authorization: Boolean(raw.skip_secondary_authorization),
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

function toGrant(raw: Record<string, unknown>): OAuth2GrantRow {
  return {
    id: Number(raw.id),
    user_id: Number(raw.user_id),
    application_id: Number(raw.application_id),
    counter: Number(raw.counter),
    scope: String(raw.scope),
    nonce: String(raw.nonce),
    created_unix: Number(raw.created_unix),
    updated_unix: Number(raw.updated_unix),
  };
}

function toCode(raw: Record<string, unknown>): OAuth2CodeRow {
  return {
    id: Number(raw.id),
    grant_id: Number(raw.grant_id),
    code_hash: String(raw.code_hash),
    code_challenge: String(raw.code_challenge),
    code_challenge_method: String(raw.code_challenge_method),
    redirect_uri: String(raw.redirect_uri),
    valid_until: Number(raw.valid_until),
    used: Boolean(raw.used),
  };
}

export type NewApplication = Pick<OAuth2ApplicationRow,
  'user_id' | 'name' | 'client_id' | 'client_secret_hash' | 'redirect_uris' | 'confidential_client' | 'skip_secondary_authorization'>;

export function oauth2Store(db: Knex) {
  return {
    async insertApplication(app: NewApplication): Promise<OAuth2ApplicationRow> {
      const now = nowUnix();
      const row = { ...app, redirect_uris: JSON.stringify(app.redirect_uris), created_unix: now, updated_unix: now };
      const [id] = await db('oauth2_applications').insert(row);
      return { ...app, id: Number(id), created_unix: now, updated_unix: now };
    },
    async applicationById(id: number): Promise<OAuth2ApplicationRow | undefined> {
      const row = await db('oauth2_applications').where({ id }).first();
      return row ? toApplication(row) : undefined;
    },
    async applicationByClientId(clientId: string): Promise<OAuth2ApplicationRow | undefined> {
      const row = await db('oauth2_applications').where({ client_id: clientId }).first();
      return row ? toApplication(row) : undefined;
    },
    async applicationsByIds(ids: number[]): Promise<Map<number, OAuth2ApplicationRow>> {
      if (ids.length === 0) return new Map();
      const rows = await db('oauth2_applications').whereIn('id', ids);
      return new Map(rows.map((r: Record<string, unknown>) => [Number(r.id), toApplication(r)]));
    },
    async listApplications(userId: number, limit: number, offset: number): Promise<OAuth2ApplicationRow[]> {
      const rows = await db('oauth2_applications').where({ user_id: userId }).orderBy('id', 'desc').limit(limit).offset(offset);
      return rows.map(toApplication);
    },
    async countApplications(userId: number): Promise<number> {
      const row = await db('oauth2_applications').where({ user_id: userId }).count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async updateApplication(id: number, userId: number, changes: Partial<Omit<NewApplication, 'user_id' | 'client_id'>>): Promise<boolean> {
      const row: Record<string, unknown> = { ...changes, updated_unix: nowUnix() };
      if (changes.redirect_uris) row.redirect_uris = JSON.stringify(changes.redirect_uris);
      return (await db('oauth2_applications').where({ id, user_id: userId }).update(row)) > 0;
    },
    /** Deletes the application with its grants and codes, so every token it issued stops working. */
    async deleteApplication(id: number, userId: number): Promise<boolean> {
      return db.transaction(async (trx) => {
        const deleted = await trx('oauth2_applications').where({ id, user_id: userId }).delete();
        if (deleted === 0) return false;
        const grantIds = trx('oauth2_grants').where({ application_id: id }).select('id');
        await trx('oauth2_authorization_codes').whereIn('grant_id', grantIds).delete();
        await trx('oauth2_grants').where({ application_id: id }).delete();
        return true;
      });
    },

    async grantById(id: number): Promise<OAuth2GrantRow | undefined> {
      const row = await db('oauth2_grants').where({ id }).first();
      return row ? toGrant(row) : undefined;
    },
    async grantFor(userId: number, applicationId: number): Promise<OAuth2GrantRow | undefined> {
      const row = await db('oauth2_grants').where({ user_id: userId, application_id: applicationId }).first();
      return row ? toGrant(row) : undefined;
    },
    async grantsOfUser(userId: number): Promise<OAuth2GrantRow[]> {
      const rows = await db('oauth2_grants').where({ user_id: userId }).orderBy('id');
      return rows.map(toGrant);
    },
    async insertGrant(userId: number, applicationId: number, scope: string, nonce: string): Promise<OAuth2GrantRow> {
      const now = nowUnix();
      const row = { user_id: userId, application_id: applicationId, counter: 1, scope, nonce, created_unix: now, updated_unix: now };
      const [id] = await db('oauth2_grants').insert(row);
      return { ...row, id: Number(id) };
    },
    async updateGrantScope(id: number, scope: string, nonce: string): Promise<void> {
      await db('oauth2_grants').where({ id }).update({ scope, nonce, updated_unix: nowUnix() });
    },
    /**
     * Compare-and-set of the refresh counter: true only for the one request that presents the
     * current counter, so two refreshes with one token cannot both succeed.
     */
    async advanceCounter(id: number, expected: number): Promise<boolean> {
      return (await db('oauth2_grants').where({ id, counter: expected }).update({ counter: expected + 1, updated_unix: nowUnix() })) > 0;
    },
    /** Revokes a grant: its codes and the grant go, so its tokens fail verification. */
    async deleteGrant(id: number, userId?: number): Promise<boolean> {
      return db.transaction(async (trx) => {
        const where: Record<string, number> = { id };
        if (userId !== undefined) where.user_id = userId;
        const deleted = await trx('oauth2_grants').where(where).delete();
        if (deleted > 0) await trx('oauth2_authorization_codes').where({ grant_id: id }).delete();
        return deleted > 0;
      });
    },

    async insertCode(code: Omit<OAuth2CodeRow, 'id' | 'used'>): Promise<void> {
      await db('oauth2_authorization_codes').insert({ ...code, used: false });
    },
    async codeByHash(codeHash: string): Promise<OAuth2CodeRow | undefined> {
      const row = await db('oauth2_authorization_codes').where({ code_hash: codeHash }).first();
      return row ? toCode(row) : undefined;
    },
    /** Marks a code used; true only for the first caller (single use even under concurrency). */
    async claimCode(id: number): Promise<boolean> {
      return (await db('oauth2_authorization_codes').where({ id, used: false }).update({ used: true })) > 0;
    },
    async deleteExpiredCodes(now: number): Promise<void> {
      await db('oauth2_authorization_codes').where('valid_until', '<', now - 3600).delete();
    },
  };
}

export type OAuth2Store = ReturnType<typeof oauth2Store>;
