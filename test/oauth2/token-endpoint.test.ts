// The token endpoint: every error branch (RFC 6749 §5.2 bodies), single-use codes, PKCE, refresh
// rotation with reuse detection, and what each of those does to the tokens already issued.
import t from 'tap';

type Tap = Pick<typeof t, 'equal' | 'same'>;
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { startTestServices } from '../helper.js';
import { basic, createOAuth2App, makeUser, obtainCode, pkcePair, REDIRECT_URI, tokenRequest, WebClient } from './fixtures.js';

t.test('token endpoint errors, codes, PKCE, refresh rotation and reuse detection', async (t) => {
  const { app, db, dataDir } = await startTestServices(t);
  await makeUser(db, 'alice');
  await makeUser(db, 'bob');
  const client = await createOAuth2App(app, 'bob');
  const web = new WebClient(app);
  await web.signIn('alice');
  const asClient = { client_id: client.client_id, client_secret: client.client_secret };
  const expectError = async (t: Tap, res: Awaited<ReturnType<typeof tokenRequest>>, status: number, error: string, description?: string, what = error) => {
    t.equal(res.statusCode, status, `${what}: status`);
    const body = res.json();
    t.equal(body.error, error, `${what}: error code`);
    if (description !== undefined) t.equal(body.error_description, description, `${what}: description`);
    t.same(Object.keys(body).sort(), ['error', 'error_description'], `${what}: RFC 6749 body`);
  };

  await t.test('grant types and client authentication', async (t) => {
    const unsupported = 'Only refresh_token or authorization_code grant type is supported';
    await expectError(t, await tokenRequest(app, { grant_type: 'password', ...asClient }), 400, 'unsupported_grant_type', unsupported);
    await expectError(t, await tokenRequest(app, { ...asClient }), 400, 'unsupported_grant_type', unsupported, 'no grant_type');
    const code = await obtainCode(web, client.client_id);
    const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI };
    await expectError(t, await tokenRequest(app, { ...base, client_id: '00000000-0000-0000-0000-000000000000', client_secret: 'x' }), 400, 'invalid_client',
      "cannot load client with client id: '00000000-0000-0000-0000-000000000000'", 'unknown client');
    await expectError(t, await tokenRequest(app, { ...base, client_id: client.client_id, client_secret: 'gto_wrong' }), 400, 'invalid_client', 'invalid client secret', 'wrong secret');
    await expectError(t, await tokenRequest(app, { ...base, client_id: client.client_id }), 400, 'invalid_client', 'invalid client secret', 'confidential client without secret');
    const wrongBasic = await tokenRequest(app, base, { authorization: basic(client.client_id, 'gto_wrong') });
    await expectError(t, wrongBasic, 401, 'invalid_client', 'invalid client secret', 'wrong secret by Basic');
    t.match(wrongBasic.headers['www-authenticate'], /^Basic /, 'Basic failures carry a challenge');
    await expectError(t, await tokenRequest(app, { ...base, client_id: 'someone-else' }, { authorization: basic(client.client_id, client.client_secret) }), 401, 'invalid_client',
      'client_id in request body inconsistent with Authorization header', 'Basic and form disagree on the id');
    await expectError(t, await tokenRequest(app, { ...base, client_secret: 'gto_other' }, { authorization: basic(client.client_id, client.client_secret) }), 401, 'invalid_client',
      'client_secret in request body inconsistent with Authorization header', 'Basic and form disagree on the secret');
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', code }), 400, 'invalid_request', 'client_id is required');
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, redirect_uri: REDIRECT_URI }), 400, 'invalid_request', 'code is required');
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code }), 400, 'invalid_request', 'redirect_uri is required');
    await expectError(t, await tokenRequest(app, { grant_type: 'refresh_token', ...asClient }), 400, 'invalid_request', 'refresh_token is required');
    // None of the refusals used the code up: Basic and form agreeing works, with the code still fresh.
    const ok = await tokenRequest(app, { ...base, client_id: client.client_id }, { authorization: basic(client.client_id, client.client_secret) });
    t.equal(ok.statusCode, 200, 'Basic plus the same client_id in the form is accepted');
    t.equal(ok.headers['cache-control'], 'no-store');
  });

  await t.test('codes: unknown, other client, redirect_uri mismatch, expired, single use', async (t) => {
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code: 'nope', redirect_uri: REDIRECT_URI }), 400, 'invalid_grant', 'client is not authorized', 'unknown code');
    const other = await createOAuth2App(app, 'bob', { name: 'other' });
    const code = await obtainCode(web, client.client_id);
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', client_id: other.client_id, client_secret: other.client_secret, code, redirect_uri: REDIRECT_URI }),
      400, 'invalid_grant', 'client is not authorized', 'code of another client');
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code, redirect_uri: 'https://client.example/other' }),
      400, 'invalid_grant', 'redirect_uri does not match the authorization request', 'redirect_uri mismatch');

    await db('oauth2_authorization_codes').update({ valid_until: Math.floor(Date.now() / 1000) - 1 });
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code, redirect_uri: REDIRECT_URI }), 400, 'invalid_grant', 'authorization code has expired', 'expired code');

    const fresh = await obtainCode(web, client.client_id);
    const stored = (await db('oauth2_authorization_codes').select('code_hash')).map((r: { code_hash: string }) => r.code_hash);
    t.ok(stored.length > 0 && stored.every((h: string) => /^[0-9a-f]{64}$/.test(h) && h !== fresh), 'codes are stored hashed');
    const first = await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code: fresh, redirect_uri: REDIRECT_URI });
    t.equal(first.statusCode, 200, 'the first exchange works');
    const { access_token } = first.json();
    t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${access_token}` } })).statusCode, 200);
    await expectError(t, await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code: fresh, redirect_uri: REDIRECT_URI }),
      400, 'invalid_grant', 'authorization code has already been used', 'code reuse');
    t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${access_token}` } })).statusCode, 401,
      'a replayed code revokes the grant: tokens issued with it stop working');
  });

  await t.test('PKCE: S256 and plain; a failed check is invalid_grant', async (t) => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(web, client.client_id, { code_challenge: challenge, code_challenge_method: 'S256' });
    const base = { grant_type: 'authorization_code', ...asClient, code, redirect_uri: REDIRECT_URI };
    // Gitea answers unauthorized_client here; RFC 7636 §4.6 says invalid_grant, and so do we.
    await expectError(t, await tokenRequest(app, base), 400, 'invalid_grant', 'failed PKCE code challenge', 'missing verifier');
    await expectError(t, await tokenRequest(app, { ...base, code_verifier: pkcePair().verifier }), 400, 'invalid_grant', 'failed PKCE code challenge', 'wrong verifier');
    t.equal((await tokenRequest(app, { ...base, code_verifier: verifier })).statusCode, 200, 'the right verifier, after failures, still works');
    const plain = pkcePair().verifier;
    const plainCode = await obtainCode(web, client.client_id, { code_challenge: plain, code_challenge_method: 'plain' });
    // JSON bodies are accepted as well as forms.
    const json = await app.inject({ method: 'POST', url: '/login/oauth/access_token',
      payload: { grant_type: 'authorization_code', ...asClient, code: plainCode, redirect_uri: REDIRECT_URI, code_verifier: plain } });
    t.equal(json.statusCode, 200, 'plain works (sent as JSON)');
  });

  await t.test('refresh rotation and reuse detection', async (t) => {
    const code = await obtainCode(web, client.client_id);
    const first = (await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code, redirect_uri: REDIRECT_URI })).json();
    t.equal(first.token_type, 'bearer');
    t.equal(first.expires_in, 3600);
    const second = await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: first.refresh_token });
    t.equal(second.statusCode, 200, 'a refresh token works once');
    const rotated = second.json();
    t.not(rotated.refresh_token, first.refresh_token, 'and is replaced');
    await expectError(t, await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: first.access_token }), 400, 'invalid_grant', 'unable to parse refresh token', 'access token as refresh token');
    t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${rotated.access_token}` } })).statusCode, 200, 'the new access token works');
    await expectError(t, await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: first.refresh_token }), 400, 'invalid_grant', 'token was already used', 'old refresh token');
    for (const token of [first.access_token, rotated.access_token]) {
      t.equal((await app.inject({ url: '/api/v1/user', headers: { authorization: `bearer ${token}` } })).statusCode, 401, 'reuse revoked the grant: its access tokens fail');
    }
    await expectError(t, await tokenRequest(app, { grant_type: 'refresh_token', ...asClient, refresh_token: rotated.refresh_token }), 400, 'invalid_grant', 'grant does not exist', 'the newest refresh token too');
  });

  await t.test('JWKS verifies the tokens; claims as Gitea signs them', async (t) => {
    const code = await obtainCode(web, client.client_id, { scope: 'openid profile email', nonce: 'n-1' });
    const tokens = (await tokenRequest(app, { grant_type: 'authorization_code', ...asClient, code, redirect_uri: REDIRECT_URI })).json();
    const keys = (await app.inject({ url: '/login/oauth/keys' })).json();
    t.equal(statSync(join(dataDir, 'jwt', 'private.pem')).mode & 0o777, 0o600, 'the key file is private to the server');
    t.equal(keys.keys.length, 1);
    t.notOk('d' in keys.keys[0], 'only the public part is published');
    const header = decodeProtectedHeader(tokens.access_token);
    t.equal(header.alg, 'RS256');
    t.equal(header.kid, keys.keys[0].kid, 'kid names the published key');
    const jwkSet = createLocalJWKSet(keys);
    const { payload } = await jwtVerify(tokens.access_token, jwkSet);
    t.equal(payload.tt, 0);
    t.type(payload.gnt, 'number');
    t.equal(Number(payload.exp) - Number(payload.iat), 3600);
    const refresh = (await jwtVerify(tokens.refresh_token, jwkSet)).payload;
    t.equal(refresh.tt, 1);
    t.equal(refresh.cnt, 1);
    t.equal(Number(refresh.exp) - Number(refresh.iat), 730 * 3600);
    const id = (await jwtVerify(tokens.id_token, jwkSet, { audience: client.client_id, issuer: app.services.config.APP_URL })).payload;
    t.equal(id.nonce, 'n-1');
    t.equal(id.preferred_username, 'alice');
    const info = await app.inject({ url: '/login/oauth/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } });
    t.equal(info.statusCode, 200);
    t.equal(info.json().preferred_username, 'alice');
    const discovery = (await app.inject({ url: '/.well-known/openid-configuration' })).json();
    t.equal(discovery.jwks_uri, `${app.services.config.APP_URL}login/oauth/keys`);
    t.same(discovery.code_challenge_methods_supported, ['plain', 'S256']);
  });
});
