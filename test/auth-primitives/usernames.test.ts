import t from 'tap';
import {
  MAX_USERNAME_LENGTH,
  RESERVED_USERNAMES,
  isValidEmail,
  isValidUsername,
  usernameKey,
  usernameProblem,
} from '../../core/auth/usernames.js';

t.test('isValidUsername: Gitea validation tests and more', async (t) => {
  const valid = ['a', 'abc', 'A', '0', '0a', 'user1', 'a-b', 'a_b', 'a.b', 'a-b_c.d', 'Alice', 'x'.repeat(MAX_USERNAME_LENGTH), 'a1-2_3.4'];
  const invalid: unknown[] = [
    '', '-a', '_a', '.a', 'a-', 'a_', 'a.', 'a--b', 'a__b', 'a..b', 'a-.b', 'a._b', 'a b', 'a/b', 'a@b', 'a+b', 'a:b',
    'x'.repeat(MAX_USERNAME_LENGTH + 1), 'ä', 'aé', 'ａ', 'a\n', 'a\u0000', '\ta', 'a\u200bb', '.', '..', null, 42, ['a'],
  ];
  for (const name of valid) t.equal(isValidUsername(name), true, name);
  for (const name of invalid) t.equal(isValidUsername(name), false, JSON.stringify(name));
});

t.test('usernameProblem', async (t) => {
  t.equal(usernameProblem('alice'), null);
  t.equal(usernameProblem('Admin'), null, 'admin is not reserved on latest Gitea');
  t.equal(usernameProblem('keys'), null, 'the pattern needs the dot');
  t.equal(usernameProblem('a.keysmith'), null);

  const reserved: Array<[string, string]> = [
    ['api', 'api'], ['API', 'api'], ['Ghost', 'ghost'], ['gitea-actions', 'gitea-actions'], ['v2', 'v2'],
    ['favicon.ico', 'favicon.ico'], ['swagger.v1.json', 'swagger.v1.json'], ['ssh_info', 'ssh_info'],
  ];
  for (const [name, lower] of reserved) {
    t.same(usernameProblem(name), { kind: 'ErrNameReserved', message: `name is reserved [name: ${lower}]` }, name);
  }
  const patterns: Array<[string, string]> = [
    ['alice.keys', '*.keys'], ['alice.gpg', '*.gpg'], ['Alice.RSS', '*.rss'], ['alice.atom', '*.atom'], ['alice.png', '*.png'],
  ];
  for (const [name, pattern] of patterns) {
    t.same(usernameProblem(name), { kind: 'ErrNamePatternNotAllowed', message: `name pattern is not allowed [pattern: ${pattern}]` }, name);
  }
  for (const name of ['-alice', 'al ice', 'a..b', '.', '..', '.well-known']) {
    t.same(usernameProblem(name), {
      kind: 'ErrNameCharsNotAllowed',
      message: `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`,
    }, name);
  }
  t.same(usernameProblem(''), { kind: 'ErrNameEmpty', message: 'name is empty' });
  t.same(usernameProblem(undefined), { kind: 'ErrNameEmpty', message: 'name is empty' });
  t.equal(usernameProblem('x'.repeat(10_000))?.kind, 'ErrNameTooLong', 'long names are refused before being echoed');
  for (const name of RESERVED_USERNAMES) t.not(usernameProblem(name), null, `reserved: ${name}`);
});

t.test('usernameKey: case-insensitive uniqueness', async (t) => {
  t.equal(usernameKey('Alice'), usernameKey('aLICE'));
  t.equal(usernameKey('Alice_B.C-1'), 'alice_b.c-1');
});

t.test('isValidEmail', async (t) => {
  const valid = [
    'a@b.c', 'alice@example.com', 'Alice.Smith+tag@mail.example.co.uk', "o'brien@example.ie", 'x_y-z@sub-domain.example',
    'user@localhost', '1@2.3', `${'a'.repeat(64)}@example.com`, `a@${'b'.repeat(63)}.com`,
  ];
  const invalid: unknown[] = [
    '', 'a', '@b.c', 'a@', 'a@@b.c', 'a@b@c.d', 'a b@c.d', 'a@b c.d', '.a@b.c', 'a.@b.c', 'a..b@c.d', '-a@b.c',
    'a@-b.c', 'a@b-.c', 'a@.b.c', 'a@b.c.', 'a@b..c', 'a@[127.0.0.1]', '"quoted"@b.c', 'ä@b.c', 'a@bü.c',
    'a@b.c\n', 'a\r\n@b.c', `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(64)}.com`, `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com`,
    'Alice <alice@example.com>', null, 42,
  ];
  for (const e of valid) t.equal(isValidEmail(e), true, e);
  for (const e of invalid) t.equal(isValidEmail(e), false, JSON.stringify(e));
});
