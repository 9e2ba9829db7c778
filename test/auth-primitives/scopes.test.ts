import t from 'tap';
import {
  ALL_SCOPES,
  AccessTokenScopeError,
  SCOPE_CATEGORIES,
  checkTokenScopes,
  hasScope,
  isPublicOnly,
  normalizeScopes,
  parseScopes,
  publicOnlyDeniedMessage,
  requiredLevelForMethod,
  scopeDeniedMessage,
  scopesFromOAuthGrant,
  scopesFromString,
  scopesToString,
  type AccessTokenScope,
} from '../../core/auth/scopes.js';

const ALL_WRITES =
  'write:activitypub,write:admin,write:misc,write:notification,write:organization,write:package,write:issue,write:repository,write:user';

// Gitea's categories sorted by name, as GetAccessTokenCategories returns them.
t.same([...SCOPE_CATEGORIES].sort(), ['activitypub', 'admin', 'issue', 'misc', 'notification', 'organization', 'package', 'repository', 'user']);
t.equal(ALL_SCOPES.length, 20, 'all, public-only and read/write for nine categories');

t.test('normalisation: the cases of access_token_scope_test.go', async (t) => {
  const cases: Array<[string, string]> = [
    ['write:misc,write:notification,read:package,write:notification,public-only', 'public-only,write:misc,write:notification,read:package'],
    ['all', 'all'],
    [ALL_WRITES, 'all'],
    [ALL_WRITES + ',public-only', 'public-only,all'],
  ];
  for (const c of SCOPE_CATEGORIES) {
    cases.push(
      [`read:${c}`, `read:${c}`],
      [`write:${c}`, `write:${c}`],
      [`write:${c},read:${c}`, `write:${c}`],
      [`read:${c},write:${c}`, `write:${c}`],
      [`read:${c},write:${c},write:${c}`, `write:${c}`],
    );
  }
  for (const [input, expected] of cases) {
    t.equal(scopesToString(parseScopes(input)), expected, input);
    t.equal(scopesToString(normalizeScopes(scopesFromString(input))), expected, `${input} (from storage)`);
  }
  t.same(normalizeScopes([]), [], 'empty stays empty');
});

t.test('more normalisation', async (t) => {
  t.same(parseScopes(['read:user', 'all']), ['all'], 'all absorbs everything else');
  t.same(parseScopes(['read:user', 'read:repository', 'write:issue']), ['write:issue', 'read:repository', 'read:user'], 'fixed category order');
  t.same(parseScopes('public-only,read:user'), ['public-only', 'read:user']);
  t.same(parseScopes(['public-only']), ['public-only'], 'public-only alone is accepted, as in Gitea');
  t.same(parseScopes(['read:user,write:user']), ['write:user'], 'an array entry holding commas is split, as Gitea joins then splits');
  t.same(parseScopes([' read:user ', '', 'read:user,,']), ['read:user'], 'trimmed, empties skipped');
  const allButUser = ALL_WRITES.replace(',write:user', ',read:user');
  t.equal(scopesToString(parseScopes(allButUser)), allButUser, 'almost all is not all');
});

t.test('parse errors carry Gitea messages', async (t) => {
  const invalid: Array<[string[] | string, string]> = [
    [['read:everything'], 'read:everything'],
    [['READ:USER'], 'READ:USER'],
    [['read:user', 'admin'], 'admin'],
    ['write:repo', 'write:repo'],
    [['sudo'], 'sudo'],
    [['read:user\u0000'], 'read:user\u0000'],
  ];
  for (const [input, bad] of invalid) {
    t.throws(() => parseScopes(input), {
      name: 'AccessTokenScopeError',
      kind: 'invalid-scope',
      status: 400,
      scope: bad,
      message: `invalid access token scope provided: invalid access token scope: ${bad}`,
    }, JSON.stringify(input));
  }
  for (const empty of [[], [''], ['', ' , '], '', ',,']) {
    t.throws(() => parseScopes(empty as string[] | string), { kind: 'no-scope', message: 'access token must have a scope' }, JSON.stringify(empty));
  }
  t.throws(() => parseScopes(Array(1000).fill('read:user')), AccessTokenScopeError, 'huge arrays refused');
  t.throws(() => parseScopes('read:user,'.repeat(1000)), AccessTokenScopeError, 'huge strings refused');
  for (const absent of [undefined, null]) {
    t.throws(() => parseScopes(absent as unknown as string[]), { kind: 'no-scope', message: 'access token must have a scope' }, `scopes: ${absent}`);
  }
  t.throws(() => parseScopes({ scope: 'all' } as unknown as string[]), { kind: 'invalid-scope', message: 'invalid access token scope provided: invalid access token scope: [object Object]' });
  t.throws(() => parseScopes([42 as unknown as string]), { kind: 'invalid-scope', message: 'invalid access token scope provided: invalid access token scope: 42' }, 'non-strings refused');
});

t.test('storage round trip and stored garbage', async (t) => {
  const scopes = parseScopes(['write:repository', 'read:user', 'public-only']);
  t.equal(scopesToString(scopes), 'public-only,write:repository,read:user');
  t.same(scopesFromString(scopesToString(scopes)), scopes);
  t.same(scopesFromString(''), [], 'legacy empty column: no scopes (every scoped route refuses)');
  t.throws(() => scopesFromString('read:user,write:future'), { message: 'invalid access token scope: write:future' });
});

t.test('hasScope, as TestAccessTokenScope_HasScope', async (t) => {
  const has = (s: string, want: AccessTokenScope): boolean => {
    const [level, category] = want.split(':') as ['read' | 'write', (typeof SCOPE_CATEGORIES)[number]];
    return hasScope(scopesFromString(s), level, category);
  };
  t.equal(has('read:admin', 'write:package'), false);
  t.equal(has('all', 'write:package'), true);
  t.equal(has('public-only', 'read:issue'), false);
  for (const c of SCOPE_CATEGORIES) {
    t.equal(has(`read:${c}`, `read:${c}`), true);
    t.equal(has(`write:${c}`, `write:${c}`), true);
    t.equal(has(`write:${c}`, `read:${c}`), true, 'write implies read');
    t.equal(has(`read:${c}`, `write:${c}`), false, 'read does not imply write');
  }
  t.equal(isPublicOnly(['public-only', 'read:user']), true);
  t.equal(isPublicOnly(['all']), false);
});

t.test('method levels', async (t) => {
  for (const m of ['GET', 'get', 'HEAD']) t.equal(requiredLevelForMethod(m), 'read', m);
  for (const m of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', '']) t.equal(requiredLevelForMethod(m), 'write', m || '(empty)');
});

t.test('route check and the 403 message', async (t) => {
  const readOnly = parseScopes(['read:repository']);
  t.same(checkTokenScopes(readOnly, 'GET', ['repository']), { allowed: true, publicOnly: false });
  t.same(checkTokenScopes(readOnly, 'POST', ['repository']), {
    allowed: false,
    message: 'token does not have at least one of required scope(s), required=[write:repository], token scope=read:repository',
  }, 'a read-only token cannot write');
  const two = checkTokenScopes(parseScopes(['write:issue', 'write:repository']), 'GET', ['repository', 'user']);
  t.same(two, {
    allowed: false,
    message: 'token does not have at least one of required scope(s), required=[read:repository read:user], token scope=write:issue,write:repository',
  }, 'every listed category is needed; Go prints the slice space-separated');
  t.same(checkTokenScopes(['public-only'], 'DELETE', []), { allowed: true, publicOnly: true }, 'no categories: any token');
  t.same(checkTokenScopes(['all', 'public-only'], 'PATCH', ['admin']), { allowed: true, publicOnly: true });
  t.equal(scopeDeniedMessage([], []), 'token does not have at least one of required scope(s), required=[], token scope=');
  t.equal(publicOnlyDeniedMessage('repos'), 'token scope is limited to public repos');
});

t.test('OAuth2 grant scopes', async (t) => {
  t.same(scopesFromOAuthGrant(''), ['all'], 'nothing requested: full access (Gitea 1.22+)');
  t.same(scopesFromOAuthGrant('openid profile email groups'), ['all'], 'OIDC scopes are not API scopes');
  t.same(scopesFromOAuthGrant('openid read:repository read:user'), ['read:repository', 'read:user']);
  t.same(scopesFromOAuthGrant('public-only write:issue'), ['public-only', 'write:issue']);
  t.same(scopesFromOAuthGrant('repo read:user'), ['all'], 'an unknown scope falls back to all, as Gitea does');
});
