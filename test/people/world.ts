// The world the account, organization, search and topic tests share: the real app on the real
// MariaDB (no Temporal: nothing here touches a pull request's workflow), users made through the
// account rules, and repositories and organizations made through the API.
import type { FastifyInstance } from 'fastify';
import { startTestServices, type TestServices } from '../helper.js';
import { basic, call, makeUser, type Call } from '../repos/fixtures.js';
import { usersStore, type UserRow } from '../../db/users.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

export interface PeopleWorld extends TestServices {
  api: (c: Call) => ReturnType<typeof call>;
  /** Calls and insists on `status`: a broken step throws, failing the (sub)test where it happens. */
  must: (status: number, c: Call) => Promise<Awaited<ReturnType<typeof call>>>;
  user: (name: string, opts?: { admin?: boolean; restricted?: boolean; visibility?: UserRow['visibility'] }) => Promise<UserRow>;
  token: (user: string, scopes: string[]) => Promise<Record<string, string>>;
}

export async function peopleWorld(t: Tap, opts: { dbType?: 'mysql' | 'sqlite3' } = {}): Promise<PeopleWorld> {
  const services = await startTestServices(t, { dbType: opts.dbType });
  const { app, db } = services;
  const api = (c: Call) => call(app, c);
  const must = insisting(api);
  const user = async (name: string, o: { admin?: boolean; restricted?: boolean; visibility?: UserRow['visibility'] } = {}) => {
    const u = await makeUser(db, name, { admin: o.admin });
    if (o.restricted || o.visibility) await usersStore(db).update(u.id, { restricted: o.restricted ?? false, visibility: o.visibility ?? 'public' });
    return (await usersStore(db).byId(u.id))!;
  };
  const token = (name: string, scopes: string[]) => scopedToken(app, name, scopes);
  return { ...services, api, must, user, token };
}

/** An Authorization header for a new token of `name` with exactly these scopes. */
export async function scopedToken(app: FastifyInstance, name: string, scopes: string[]): Promise<Record<string, string>> {
  const res = await app.inject({
    method: 'POST', url: `/api/v1/users/${name}/tokens`, headers: basic(name),
    payload: { name: `t-${scopes.join('-')}-${Math.random().toString(36).slice(2, 8)}`, scopes },
  });
  if (res.statusCode !== 201) throw new Error(`token for ${name}: ${res.statusCode} ${res.body}`);
  return { authorization: `token ${res.json().sha1}` };
}

/** Calls through `api` and insists on `status`: a broken step throws, failing the (sub)test where it happens. */
export function insisting(api: (c: Call) => ReturnType<typeof call>) {
  return async (status: number, c: Call) => {
    const res = await api(c);
    if (res.statusCode !== status) throw new Error(`${c.method ?? 'GET'} ${c.url} as ${c.as ?? 'anonymous'}: ${res.statusCode} (wanted ${status}) ${res.body.slice(0, 300)}`);
    return res;
  };
}
