// Shared set-up for the account tests: real users through the real account rules, real tokens
// through the real API.
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import { createUser } from '../../core/accounts.js';
import type { UserRow } from '../../db/users.js';

export const PASSWORD = 'correct horse battery staple';

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

export async function makeUser(db: Knex, name: string, options: { admin?: boolean; visibility?: 'public' | 'limited' | 'private'; password?: string } = {}): Promise<UserRow> {
  return createUser(db, {
    username: name,
    email: `${name.toLowerCase()}@example.com`,
    password: options.password ?? PASSWORD,
    isAdmin: options.admin ?? false,
    visibility: options.visibility ?? 'public',
  });
}

/** Creates a token through POST /users/{name}/tokens with Basic password auth and returns its value. */
export async function makeToken(app: FastifyInstance, name: string, scopes: string[] = ['all'], tokenName = `t-${Math.random().toString(36).slice(2)}`, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/users/${name}/tokens`,
    headers: { authorization: basic(name, PASSWORD), ...headers },
    payload: { name: tokenName, scopes },
  });
  if (res.statusCode !== 201) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { sha1: string }).sha1;
}

export function apiError(app: FastifyInstance, message: string): { message: string; url: string } {
  return { message, url: `${app.services.config.APP_URL}api/swagger` };
}
