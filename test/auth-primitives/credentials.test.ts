import t from 'tap';
import {
  MAX_CREDENTIAL_LENGTH,
  basicTokenCandidate,
  otpFromHeaders,
  parseCredentials,
  type Credentials,
} from '../../core/auth/credentials.js';

const TOKEN = '0123456789abcdef0123456789abcdef01234567';
const OTHER = 'fedcba9876543210fedcba9876543210fedcba98';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJnbnQiOjEsInR0IjowfQ.c2lnbmF0dXJl';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const header = (authorization: string | string[] | undefined): Credentials => parseCredentials({ authorization });

t.test('no credentials', async (t) => {
  for (const h of [undefined, '', '   ', '\t', []]) t.same(header(h), { kind: 'none' }, JSON.stringify(h));
  t.same(parseCredentials({ query: {} }), { kind: 'none' });
  t.same(parseCredentials({ query: { token: '', access_token: '' } }), { kind: 'none' }, 'empty query values are absent');
});

t.test('token and bearer headers', async (t) => {
  const cases: Array<[string, Credentials]> = [
    [`token ${TOKEN}`, { kind: 'token', value: TOKEN, source: 'header' }],
    [`Token ${TOKEN}`, { kind: 'token', value: TOKEN, source: 'header' }],
    [`TOKEN ${TOKEN}`, { kind: 'token', value: TOKEN, source: 'header' }],
    [`bearer ${TOKEN}`, { kind: 'token', value: TOKEN, source: 'header' }],
    [`Bearer ${JWT}`, { kind: 'bearer', value: JWT, source: 'header' }],
    [`token ${JWT}`, { kind: 'bearer', value: JWT, source: 'header' }],
    [`  token   ${TOKEN}  `, { kind: 'token', value: TOKEN, source: 'header' }],
    [`token\t${TOKEN}`, { kind: 'token', value: TOKEN, source: 'header' }],
  ];
  for (const [h, expected] of cases) t.same(header(h), expected, h);
});

t.test('malformed headers are invalid, not anonymous', async (t) => {
  const cases: Array<[string | string[], string]> = [
    [TOKEN, 'malformed-header'], // the word "token" is required
    [`token ${TOKEN} extra`, 'malformed-header'],
    ['token', 'malformed-header'],
    [`Digest ${TOKEN}`, 'unsupported-scheme'],
    [`tokenx ${TOKEN}`, 'unsupported-scheme'],
    [`token ${TOKEN.toUpperCase()}`, 'malformed-token'],
    [`token ${TOKEN.slice(1)}`, 'malformed-token'],
    ['token not-a-token', 'malformed-token'],
    ['bearer a.b', 'malformed-token'],
    ['bearer a..c', 'malformed-token'],
    ['bearer a.b.c.d', 'malformed-token'],
    [`token ${TOKEN}\r\nX-Injected: 1`, 'bad-characters'],
    [`token ${TOKEN}\u0000`, 'bad-characters'],
    [`token ${TOKEN}\u00e9`, 'bad-characters'],
    [`token ${TOKEN}\u{1F600}`, 'bad-characters'],
    ['token ' + 'a'.repeat(MAX_CREDENTIAL_LENGTH), 'too-long'],
    [[`token ${TOKEN}`, `token ${OTHER}`], 'malformed-header'],
  ];
  for (const [h, reason] of cases) t.same(header(h), { kind: 'invalid', reason }, JSON.stringify(h).slice(0, 80));
});

t.test('basic', async (t) => {
  const ok: Array<[string, string, string]> = [
    [`Basic ${b64('alice:secret')}`, 'alice', 'secret'],
    [`basic ${b64('alice:secret')}`, 'alice', 'secret'],
    [`BASIC ${b64('alice:se:cr:et')}`, 'alice', 'se:cr:et'], // split at the first ':'
    [`Basic ${b64('alice:')}`, 'alice', ''],
    [`Basic ${b64(':secret')}`, '', 'secret'],
    [`Basic ${b64('алиса:пароль')}`, 'алиса', 'пароль'],
    [`Basic ${b64('alice:tab\there')}`, 'alice', 'tab\there'], // passwords are opaque
    [`Basic ${b64(`${TOKEN}:x-oauth-basic`)}`, TOKEN, 'x-oauth-basic'],
  ];
  for (const [h, username, password] of ok) t.same(header(h), { kind: 'basic', username, password }, h);

  const bad = [
    'Basic',
    'Basic !!!!',
    `Basic ${b64('no-colon')}`,
    `Basic ${b64('alice:pw').replace(/=+$/, '')}`, // Go's StdEncoding requires padding
    `Basic ${b64('alice:pw')}=`,
    `Basic ${b64('alice:secret').replace(/[A-Za-z]/, '-')}`, // base64url alphabet is not base64
    `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString('base64')}`, // not UTF-8
    `Basic ${b64('ali\u0000ce:secret')}`,
    `Basic ${b64('alice\n:secret')}`,
  ];
  for (const h of bad) {
    const got = header(h);
    t.equal(got.kind, 'invalid', h);
  }
  t.same(header(`Basic ${b64('a'.repeat(4000))}`), { kind: 'invalid', reason: 'too-long' });
});

t.test('query tokens, precedence and switches', async (t) => {
  t.same(parseCredentials({ query: { token: TOKEN } }), { kind: 'token', value: TOKEN, source: 'query' });
  t.same(parseCredentials({ query: { access_token: TOKEN } }), { kind: 'token', value: TOKEN, source: 'query' });
  t.same(parseCredentials({ query: { access_token: JWT } }), { kind: 'bearer', value: JWT, source: 'query' });
  t.same(parseCredentials({ query: { token: TOKEN, access_token: OTHER } }), { kind: 'token', value: TOKEN, source: 'query' }, '?token= first');
  t.same(
    parseCredentials({ authorization: `Basic ${b64('alice:pw')}`, query: { token: TOKEN } }),
    { kind: 'token', value: TOKEN, source: 'query' },
    'the query wins over the header, as in Gitea (OAuth2 method runs first)',
  );
  t.same(
    parseCredentials({ authorization: `token ${OTHER}`, query: { token: TOKEN }, allowQueryTokens: false }),
    { kind: 'token', value: OTHER, source: 'header' },
    'DISABLE_QUERY_AUTH_TOKEN: the query is ignored',
  );
  t.same(parseCredentials({ query: { token: [TOKEN, TOKEN] } }), { kind: 'token', value: TOKEN, source: 'query' }, 'exact repeats are fine');
  t.same(parseCredentials({ query: { token: [TOKEN, OTHER] } }), { kind: 'invalid', reason: 'ambiguous-query' });
  t.same(parseCredentials({ query: { token: 'nope' } }), { kind: 'invalid', reason: 'malformed-token' });
  t.same(parseCredentials({ query: { token: { $gt: '' } } }), { kind: 'invalid', reason: 'malformed-token' });
  t.same(parseCredentials({ query: { token: 12345 } }), { kind: 'invalid', reason: 'malformed-token' });
});

t.test('garbage never throws', async (t) => {
  t.equal(b64('alice:pw').endsWith('='), true, 'the padding case really has padding');
  t.same(parseCredentials(null as unknown as Parameters<typeof parseCredentials>[0]), { kind: 'none' });
  const junk: unknown[] = [null, 0, {}, [null], [1, 2], '\uffff', 'Basic \u0000', 'x'.repeat(100_000), `bearer ${'.'.repeat(10)}`];
  for (const j of junk) {
    t.doesNotThrow(() => parseCredentials({ authorization: j as string }));
    t.doesNotThrow(() => parseCredentials({ query: { token: j, access_token: j } }));
  }
});

t.test('basicTokenCandidate', async (t) => {
  t.same(basicTokenCandidate(TOKEN, ''), { token: TOKEN, kind: 'token', position: 'username', passwordLoginPossible: false }, '<token>:');
  t.same(basicTokenCandidate(TOKEN, 'x-oauth-basic'), { token: TOKEN, kind: 'token', position: 'username', passwordLoginPossible: true }, '<token>:x-oauth-basic');
  t.same(basicTokenCandidate('alice', TOKEN), { token: TOKEN, kind: 'token', position: 'password', passwordLoginPossible: true }, '<user>:<token>');
  t.same(basicTokenCandidate('alice', JWT), { token: JWT, kind: 'bearer', position: 'password', passwordLoginPossible: true }, '<user>:<jwt>');
  t.equal(basicTokenCandidate('alice', 'hunter2'), null, 'plain password');
  t.equal(basicTokenCandidate('alice', ''), null, 'username is not token-shaped');
  t.equal(basicTokenCandidate(TOKEN.toUpperCase(), ''), null);
});

t.test('otpFromHeaders', async (t) => {
  t.equal(otpFromHeaders({ 'x-gitea-otp': '123456' }), '123456');
  t.equal(otpFromHeaders({ 'x-service-otp': '123456' }), '123456');
  t.equal(otpFromHeaders({ 'x-gitea-otp': '123456', 'x-service-otp': '123456' }), '123456', 'both, same code');
  t.equal(otpFromHeaders({ 'x-gitea-otp': ' 123456 ' }), '123456');
  t.equal(otpFromHeaders({ 'x-gitea-otp': '123456', 'x-service-otp': '654321' }), null, 'two different codes');
  t.equal(otpFromHeaders({ 'x-gitea-otp': ['123456', '654321'] }), null);
  t.equal(otpFromHeaders({}), null);
  t.equal(otpFromHeaders({ 'x-gitea-otp': '' }), null);
  t.equal(otpFromHeaders({ 'x-gitea-otp': '1'.repeat(1000) }), null, 'oversized');
});
