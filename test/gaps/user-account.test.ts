// The signed-in user's settings and e-mail addresses against the real app and MariaDB: Gitea's
// defaults and answers, "" as a value that clears, hide_email and language as others see them,
// token scopes and public-only tokens, and addresses that belong to one account only.
import t from 'tap';
import { gapsWorld } from './world.js';

t.test('user settings and e-mail addresses', async (t) => {
  const w = await gapsWorld(t, 'ua');
  const { must, api } = w;
  const me = 'ua-writer';

  await t.test('settings: Gitea\'s defaults, partial changes, "" clears', async (t) => {
    t.same((await must(200, { url: '/api/v1/user/settings', as: me })).json(), {
      full_name: '', website: '', description: '', location: '', language: '', theme: 'gitea-auto', diff_view_style: '', hide_email: false, hide_activity: false,
    });
    const changed = await must(200, {
      method: 'PATCH', url: '/api/v1/user/settings', as: me,
      body: { full_name: 'Writer on Test', language: 'de_de', hide_email: true, website: 'https://example.org/w', diff_view_style: 'split', hide_activity: true, theme: null },
    });
    t.same(changed.json(), {
      full_name: 'Writer on Test', website: 'https://example.org/w', description: '', location: '', language: 'de_de', theme: 'gitea-auto',
      diff_view_style: 'split', hide_email: true, hide_activity: true,
    }, 'what was given changed; null left the theme alone');
    t.same((await must(200, { url: '/api/v1/user/settings', as: me })).json(), changed.json(), 'stored');

    // Others see the e-mail hidden and no language; the user and site admins see both.
    t.equal((await must(200, { url: `/api/v1/users/${me}`, as: 'ua-reader' })).json().email, 'ua-writer@noreply.127.0.0.1');
    t.equal((await must(200, { url: `/api/v1/users/${me}`, as: 'ua-reader' })).json().language, '');
    t.match((await must(200, { url: '/api/v1/user', as: me })).json(), { email: 'ua-writer@example.com', language: 'de_de', full_name: 'Writer on Test' });
    t.equal((await must(200, { url: `/api/v1/users/${me}`, as: 'ua-site' })).json().email, 'ua-writer@example.com');

    const cleared = await must(200, { method: 'PATCH', url: '/api/v1/user/settings', as: me, body: { full_name: '', language: '', hide_email: false, website: '' } });
    t.match(cleared.json(), { full_name: '', language: '', hide_email: false, website: '', diff_view_style: 'split' }, '"" is a value: it clears');
    t.equal((await must(200, { url: `/api/v1/users/${me}`, as: 'ua-reader' })).json().email, 'ua-writer@example.com', 'shown again');
  });

  await t.test('settings: Gitea\'s messages for bad input', async (t) => {
    const patch = (body: unknown) => api({ method: 'PATCH', url: '/api/v1/user/settings', as: me, body });
    const cases: Array<[unknown, string]> = [
      [{ full_name: 'x'.repeat(101) }, '[FullName]: MaxSize'],
      [{ website: 'notaurl' }, '[Website]: Url'],
      [{ website: 'javascript:alert(1)' }, '[Website]: Url'],
      [{ location: 'y'.repeat(51) }, '[Location]: MaxSize'],
      [{ description: 'z'.repeat(256) }, ''],
    ];
    for (const [body, message] of cases) {
      const r = await patch(body);
      t.equal(r.statusCode, 422, JSON.stringify(body).slice(0, 40));
      if (message) t.equal(r.json().message, message);
    }
    t.equal((await patch({ hide_email: 'yes' })).statusCode, 422, 'a boolean must be a boolean');
    t.equal((await must(200, { url: '/api/v1/user/settings', as: me })).json().location, '', 'nothing was changed by refused requests');
  });

  await t.test('settings and e-mails: signed-in only, user scope, never public-only tokens', async (t) => {
    for (const url of ['/api/v1/user/settings', '/api/v1/user/emails']) {
      t.equal((await api({ url })).statusCode, 401, `${url}: anonymous`);
      const publicOnly = await w.token(me, ['read:user', 'public-only']);
      const r = await api({ url, headers: publicOnly });
      t.equal(r.statusCode, 403, `${url}: public-only token`);
      t.equal(r.json().message, 'this endpoint is not available for public-only tokens');
      const readUser = await w.token(me, ['read:user']);
      t.equal((await api({ url, headers: readUser })).statusCode, 200, `${url}: read:user reads`);
      const wrongScope = await w.token(me, ['read:repository']);
      t.equal((await api({ url, headers: wrongScope })).statusCode, 403, `${url}: another category is refused`);
    }
    const readUser = await w.token(me, ['read:user']);
    t.equal((await api({ method: 'PATCH', url: '/api/v1/user/settings', headers: readUser, body: { location: 'x' } })).statusCode, 403, 'changing needs write:user');
    t.equal((await api({ method: 'POST', url: '/api/v1/user/emails', headers: readUser, body: { emails: ['x@example.org'] } })).statusCode, 403);
  });

  await t.test('e-mail addresses: list, add, delete as Gitea', async (t) => {
    const list = async (who = me) => (await must(200, { url: '/api/v1/user/emails', as: who })).json();
    t.same(await list(), [{ email: 'ua-writer@example.com', verified: true, primary: true, user_id: 0, username: '' }]);
    const added = await must(201, { method: 'POST', url: '/api/v1/user/emails', as: me, body: { emails: ['Wow@mail.example', 'speed@mail.example'] } });
    t.same(added.json().map((e: { email: string; primary: boolean }) => [e.email, e.primary]), [['ua-writer@example.com', true], ['Wow@mail.example', false], ['speed@mail.example', false]]);

    const post = (who: string, emails: unknown) => api({ method: 'POST', url: '/api/v1/user/emails', as: who, body: { emails } });
    const again = await post(me, ['speed@mail.example']);
    t.equal(again.statusCode, 422);
    t.equal(again.json().message, 'Email address has been used: speed@mail.example');
    t.equal((await post('ua-reader', ['WOW@mail.example'])).json().message, 'Email address has been used: WOW@mail.example', 'another user cannot take it, whatever the case');
    t.equal((await post('ua-reader', ['ua-owner@example.com'])).json().message, 'Email address has been used: ua-owner@example.com', "nor anybody's primary address");
    t.equal((await post(me, [])).json().message, 'Email list empty');
    for (const bad of ['bad', 'a b@x.com', '-lead@example.org', '']) {
      const r = await post(me, [bad]);
      t.equal(r.statusCode, 422, JSON.stringify(bad));
      t.equal(r.json().message, `Email address ${JSON.stringify(bad)} invalid`);
    }
    const mixed = await post(me, ['fresh@mail.example', 'FRESH@mail.example']);
    t.equal(mixed.statusCode, 422, 'the same address twice in one request');
    t.equal((await list()).length, 3, 'all or nothing: the first of a refused list was not added');

    // A new account cannot take a further address either.
    const taken = await api({ method: 'POST', url: '/api/v1/admin/users', as: 'ua-site', body: { username: 'ua-late', email: 'speed@mail.example', password: 'long-enough-pass', must_change_password: false } });
    t.equal(taken.statusCode, 422);
    t.match(taken.json().message, /e-mail already in use/);

    const del = (emails: unknown) => api({ method: 'DELETE', url: '/api/v1/user/emails', as: me, body: { emails } });
    t.equal((await del(['speed@mail.example'])).statusCode, 204);
    const missing = await del(['wow@mail.example', 'imaginary@e.de']);
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().message, 'Email address does not exist [email: imaginary@e.de]');
    t.equal((await list()).length, 2, 'all or nothing: the known address of a refused list stays');
    const primary = await del(['UA-WRITER@example.com']);
    t.equal(primary.statusCode, 422);
    t.equal(primary.json().message, 'Primary email address cannot be deleted [email: UA-WRITER@example.com]');
    t.equal((await del(['wow@mail.example'])).statusCode, 204, 'deleted without regard to case');
    t.equal((await del([])).statusCode, 204, 'an empty list deletes nothing');
    t.same(await list(), [{ email: 'ua-writer@example.com', verified: true, primary: true, user_id: 0, username: '' }]);
    await must(201, { method: 'POST', url: '/api/v1/user/emails', as: 'ua-reader', body: { emails: ['speed@mail.example'] } });
    t.equal((await list('ua-reader')).length, 2, 'a freed address can be taken by somebody else');
  });

  await t.test('Sudo: a site admin manages another user\'s addresses and settings, as the SDK does', async (t) => {
    const sudo = { sudo: 'ua-member' };
    await must(201, { method: 'POST', url: '/api/v1/user/emails', as: 'ua-site', headers: sudo, body: { emails: ['member2@mail.example'] } });
    t.equal((await must(200, { url: '/api/v1/user/emails', as: 'ua-member' })).json().length, 2);
    await must(200, { method: 'PATCH', url: '/api/v1/user/settings', as: 'ua-site', headers: sudo, body: { location: 'Berlin' } });
    t.equal((await must(200, { url: '/api/v1/user/settings', as: 'ua-member' })).json().location, 'Berlin');
  });
});
