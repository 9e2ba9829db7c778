// The repository lifecycle on the embedded SQLite database (booleans as 0/1, one connection).
import { existsSync } from 'node:fs';
import t from 'tap';
import { startTestServices } from '../helper.js';
import { repoDiskPath } from '../../core/repositories.js';
import { call, makeUser } from './fixtures.js';

t.test('create, fork, branch, edit and delete on SQLite', async (t) => {
  const { app, db, config } = await startTestServices(t, { dbType: 'sqlite3' });
  await makeUser(db, 'sue');
  await makeUser(db, 'tom');
  const created = await call(app, { method: 'POST', url: '/api/v1/user/repos', as: 'sue', body: { name: 'lite', auto_init: true, private: true } });
  t.equal(created.statusCode, 201, created.body);
  t.match(created.json(), { private: true, empty: false, archived: false });
  await call(app, { method: 'PUT', url: '/api/v1/repos/sue/lite/collaborators/tom', as: 'sue', body: { permission: 'read' } });
  const fork = await call(app, { method: 'POST', url: '/api/v1/repos/sue/lite/forks', as: 'tom', body: {} });
  t.equal(fork.statusCode, 202, fork.body);
  t.match(fork.json(), { fork: true, private: true, parent: { full_name: 'sue/lite' } });
  t.equal((await call(app, { method: 'POST', url: '/api/v1/repos/sue/lite/branches', as: 'sue', body: { new_branch_name: 'dev' } })).statusCode, 201);
  const edit = await call(app, { method: 'PATCH', url: '/api/v1/repos/sue/lite', as: 'sue', body: { archived: true } });
  t.equal(edit.json().archived, true);
  t.equal((await call(app, { method: 'DELETE', url: '/api/v1/repos/sue/lite', as: 'sue' })).statusCode, 204);
  t.notOk(existsSync(repoDiskPath(config, 'sue', 'lite')));
  const orphan = await call(app, { url: '/api/v1/repos/tom/lite', as: 'tom' });
  t.equal(orphan.statusCode, 200, 'the fork survives its base');
  t.match(orphan.json(), { fork: false }, 'and becomes a plain repository, as in Gitea');
});
