// Shared set-up for the OAuth2 and web page tests: applications through the real API, a web
// session driven through the real forms (cookie jar, CSRF token from the page), the PKCE pieces.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { basic, PASSWORD } from '../accounts/fixtures.js';

export { basic, makeUser, makeToken, PASSWORD } from '../accounts/fixtures.js';

export const REDIRECT_URI = 'https://client.example/callback';

export interface CreatedApp {
  id: number;
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  confidential_client: boolean;
}

export async function createOAuth2App(app: FastifyInstance, owner: string, body: Record<string, unknown> = {}): Promise<CreatedApp> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/user/applications/oauth2',
    headers: { authorization: basic(owner, PASSWORD) },
    payload: { name: 'client', redirect_uris: [REDIRECT_URI], confidential_client: true, ...body },
  });
  if (res.statusCode !== 201) throw new Error(`application creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as CreatedApp;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser-like session over inject: keeps the cookie and reads CSRF tokens from pages. */
export class WebClient {
  cookie = '';
  constructor(readonly app: FastifyInstance) {}

  private keep(res: { cookies: Array<{ name: string; value: string }> }) {
    for (const c of res.cookies) if (c.name === 'pullhost_session') this.cookie = c.value === '' ? '' : `pullhost_session=${c.value}`;
  }

  async get(url: string) {
    const res = await this.app.inject({ method: 'GET', url, headers: this.cookie ? { cookie: this.cookie } : {} });
    this.keep(res);
    return res;
  }

  async post(url: string, form: Record<string, string | string[]>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      payload: body.toString(),
    });
    this.keep(res);
    return res;
  }

  static csrfOf(html: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!m) throw new Error('no CSRF token in the page');
    return m[1]!;
  }

  /** Signs in through the form (no 2FA); returns the last response. */
  async signIn(name: string, password = PASSWORD) {
    const page = await this.get('/user/login');
    const res = await this.post('/user/login', { _csrf: WebClient.csrfOf(page.body), user_name: name, password });
    if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
    return res;
  }
}

export function authorizeUrl(clientId: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', state: 'st-123', ...extra });
  return `/login/oauth/authorize?${q}`;
}

/** Runs authorize → consent → grant as the signed-in web client; returns the code. */
export async function obtainCode(web: WebClient, clientId: string, extra: Record<string, string> = {}): Promise<string> {
  let res = await web.get(authorizeUrl(clientId, extra));
  if (res.statusCode === 200) {
    const fields: Record<string, string> = {};
    for (const m of res.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
    res = await web.post('/login/oauth/grant', { ...fields, granted: 'true' });
  }
  if (res.statusCode !== 303) throw new Error(`authorization failed: ${res.statusCode} ${res.body}`);
  const location = new URL(String(res.headers.location));
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

export async function tokenRequest(app: FastifyInstance, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/login/oauth/access_token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}
