// The whole thing in a real browser (Playwright driving Debian's Chromium): sign in, generate a
// token on Settings → Applications and use it, then the authorization-code flow with PKCE against
// a small client running in this test, and the resulting bearer token in all three places.
// Screenshots of each page go to test-artifacts/oauth2/.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { startTestServices } from '../helper.js';
import { basic, makeUser, PASSWORD } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'oauth2');
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium): browser test skipped`;

interface ClientState {
  port: number;
  server: Server;
  tokens: Promise<{ access_token: string; refresh_token: string }>;
}

/** A tiny OAuth2 client: /start sends the browser to authorize, /callback exchanges the code. */
async function startClient(baseUrl: string, credentials: () => { id: string; secret: string }): Promise<ClientState> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  let resolveTokens!: (v: { access_token: string; refresh_token: string }) => void;
  let rejectTokens!: (e: Error) => void;
  const tokens = new Promise<{ access_token: string; refresh_token: string }>((res, rej) => { resolveTokens = res; rejectTokens = rej; });
  let port = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    if (url.pathname === '/start') {
      const q = new URLSearchParams({
        client_id: credentials().id, redirect_uri: redirectUri, response_type: 'code', state, scope: 'openid read:user',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      });
      res.writeHead(302, { location: `${baseUrl}login/oauth/authorize?${q}` }).end();
      return;
    }
    if (url.pathname === '/callback') {
      if (url.searchParams.get('state') !== state) {
        res.writeHead(400).end('state mismatch');
        rejectTokens(new Error('state mismatch'));
        return;
      }
      const { id, secret } = credentials();
      fetch(`${baseUrl}login/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: url.searchParams.get('code') ?? '', redirect_uri: redirectUri, code_verifier: verifier }),
      }).then(async (r) => {
        const body = await r.json() as { access_token: string; refresh_token: string };
        if (r.status !== 200) throw new Error(`token exchange failed: ${r.status} ${JSON.stringify(body)}`);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><title>Client</title><h1>Connected to pullhost</h1>');
        resolveTokens(body);
      }).catch((err: Error) => {
        res.writeHead(500).end(err.message);
        rejectTokens(err);
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { port, server, tokens };
}

t.test('sign in, generate a token, authorise a client with PKCE, in Chromium', { skip }, async (t) => {
  const { chromium } = await import('playwright-core');
  const { app, db, baseUrl } = await startTestServices(t, { listen: true });
  await makeUser(db, 'alice');
  mkdirSync(ARTIFACTS, { recursive: true });

  let credentials = { id: '', secret: '' };
  const client = await startClient(baseUrl, () => credentials);
  t.teardown(() => new Promise<void>((resolve) => client.server.close(() => resolve())));
  const created = await fetch(`${baseUrl}api/v1/user/applications/oauth2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basic('alice', PASSWORD) },
    body: JSON.stringify({ name: 'Test client', redirect_uris: [`http://127.0.0.1:${client.port}/callback`], confidential_client: true }),
  });
  t.equal(created.status, 201);
  const appBody = await created.json() as { client_id: string; client_secret: string };
  credentials = { id: appBody.client_id, secret: appBody.client_secret };

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  // Sign in with the keyboard: labels find the fields, Enter submits.
  await page.goto(`${baseUrl}user/settings/applications`);
  t.match(page.url(), /\/user\/login\?redirect_to=/, 'sent to the sign-in page');
  await shot('01-sign-in');
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByLabel('Password').press('Enter');
  await page.waitForURL(/\/user\/settings\/applications$/);
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Applications');
  await shot('02-applications');

  await page.getByLabel('Token name').fill('from the browser');
  await page.getByLabel('read:user', { exact: true }).check();
  await page.getByRole('button', { name: 'Generate Token' }).click();
  const tokenValue = (await page.locator('#new-token-value').textContent())?.trim() ?? '';
  t.match(tokenValue, /^[0-9a-f]{40}$/, 'the new token is shown');
  await shot('03-token-generated');
  const me = await fetch(`${baseUrl}api/v1/user`, { headers: { authorization: `token ${tokenValue}` } });
  t.equal(me.status, 200, 'the generated token works against the API');
  t.equal((await me.json() as { login: string }).login, 'alice');

  // The authorization-code flow: the client sends the browser to us, we ask for consent.
  await page.goto(`http://127.0.0.1:${client.port}/start`);
  await page.waitForURL(/\/login\/oauth\/authorize\?/);
  t.match(await page.textContent('main') ?? '', /Test client/, 'the consent page names the client');
  await shot('04-consent');
  await page.getByRole('button', { name: 'Authorize Application' }).click();
  await page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${client.port}/callback\\?`));
  const tokens = await client.tokens;
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Connected to pullhost');
  await shot('05-client-callback');

  for (const [where, url, headers] of [
    ['Authorization: bearer', `${baseUrl}api/v1/user`, { authorization: `bearer ${tokens.access_token}` }],
    ['?token=', `${baseUrl}api/v1/user?token=${tokens.access_token}`, {}],
    ['?access_token=', `${baseUrl}api/v1/user?access_token=${tokens.access_token}`, {}],
  ] as const) {
    const res = await fetch(url, { headers });
    t.equal(res.status, 200, `the OAuth2 token works in ${where}`);
    t.equal((await res.json() as { login: string }).login, 'alice');
  }

  await page.goto(`${baseUrl}user/settings/applications`);
  t.match(await page.textContent('main') ?? '', /Test client/, 'the client is listed as authorised');
  await shot('06-authorised-apps');
  await page.getByRole('button', { name: 'Revoke access of Test client' }).click();
  await page.waitForURL(/\/user\/settings\/applications$/);
  t.equal((await fetch(`${baseUrl}api/v1/user`, { headers: { authorization: `bearer ${tokens.access_token}` } })).status, 401, 'revoked in the browser: the token fails');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/user\/login$/);
  await shot('07-signed-out');
  t.ok(app.server.listening);
});
