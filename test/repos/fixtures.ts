// Shared pieces of the repository tests: users with passwords, basic auth headers, API calls through
// inject, and the real git binary run against the listening server.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createUser } from '../../core/accounts.js';
import { usersStore, type UserRow } from '../../db/users.js';
import type { Db } from '../../db/connection.js';

export const PASSWORD = 'correct-horse-battery';

export function basic(user: string, password = PASSWORD): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

export async function makeUser(db: Db, name: string, opts: { admin?: boolean } = {}): Promise<UserRow> {
  const user = await createUser(db, { username: name, email: `${name}@example.com`, password: PASSWORD });
  if (opts.admin) await usersStore(db).update(user.id, { is_admin: true });
  return (await usersStore(db).byId(user.id))!;
}

export interface Call {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  as?: string | null;
  /** How `as` signs in: an access token of all scopes (the default), or the password. */
  auth?: 'token' | 'basic';
  body?: unknown;
  headers?: Record<string, string>;
}

/** Gitea takes only a password on its token routes. */
const PASSWORD_ONLY_URL = /^\/api\/v1\/users\/[^/?]+\/tokens/;

// Each password sign-in is an argon2 verify (~14 ms of CPU), the suite's largest single cost when
// every fixture call paid it; so `as` signs in with a token made once per user and app. Users a
// token cannot be made for (unknown, suspended, second factor) keep signing in with the password.
const fixtureTokens = new WeakMap<FastifyInstance, Map<string, Promise<string | null>>>();

export function fixtureToken(app: FastifyInstance, user: string): Promise<string | null> {
  let byUser = fixtureTokens.get(app);
  if (!byUser) fixtureTokens.set(app, (byUser = new Map()));
  let token = byUser.get(user);
  if (!token) {
    token = app.inject({ method: 'POST', url: `/api/v1/users/${encodeURIComponent(user)}/tokens`, headers: basic(user), payload: { name: 'test-fixture', scopes: ['all'] } })
      .then((r) => (r.statusCode === 201 ? String(r.json().sha1) : null));
    byUser.set(user, token);
  }
  return token;
}

/** The Authorization header of `user`'s fixture token. */
export async function tokenAuthHeader(app: FastifyInstance, user: string): Promise<Record<string, string>> {
  const token = await fixtureToken(app, user);
  if (!token) throw new Error(`no access token could be made for ${user}`);
  return { authorization: `token ${token}` };
}

async function authHeaders(app: FastifyInstance, c: Call): Promise<Record<string, string>> {
  if (!c.as) return {};
  if (c.auth === 'basic' || PASSWORD_ONLY_URL.test(c.url)) return basic(c.as);
  const token = await fixtureToken(app, c.as);
  return token ? { authorization: `token ${token}` } : basic(c.as);
}

export async function call(app: FastifyInstance, c: Call) {
  const headers: Record<string, string> = { ...(await authHeaders(app, c)), ...c.headers };
  return app.inject({ method: c.method ?? 'GET', url: c.url, headers, ...(c.body !== undefined ? { payload: c.body as object } : {}) });
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch HOME and work area for git, removed at teardown. */
export function gitSandbox(t: { teardown(fn: () => unknown): void }): { home: string; git: (args: string[], cwd?: string) => Promise<GitResult> } {
  const home = mkdtempSync(join(tmpdir(), 'pullhost-git-home-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 'tester@example.com',
    GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 'tester@example.com',
  };
  const git = (args: string[], cwd = home) => new Promise<GitResult>((resolve) => {
    execFile('git', ['-c', 'credential.helper=', '-c', 'init.defaultBranch=main', ...args], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
  return { home, git };
}

/** http://user:secret@host:port/owner/repo.git from the server's base URL. */
export function cloneUrl(baseUrl: string, path: string, user?: string, secret?: string): string {
  const u = new URL(path, baseUrl);
  if (user !== undefined) {
    u.username = encodeURIComponent(user);
    u.password = encodeURIComponent(secret ?? '');
  }
  return u.toString();
}
