// MariaDB dies (SIGKILL) under load and comes back on the same data directory: while it is down every
// answer is a success or a 503 in Gitea's shape (never a 500, never a hang), the same service
// recovers by itself, and what was written stays written, once.
import mysql from 'mysql2/promise';
import { isDatabaseUnavailable } from '../../db/connection.js';
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { openPull, waitFor } from '../merge/world.js';
import { assertPullsAgree, assertRepositorySound } from './consistency.js';
import { startPrivateMariaDb } from './private-mariadb.js';
import { repoDiskPath } from '../../core/repositories.js';

// Longer than the service's own limits (5 s to connect or to get a pooled connection).
const ANSWER_BOUND_MS = 20_000;

interface Answer {
  phase: 'up' | 'down' | 'back';
  what: string;
  status: number | 'no answer';
  body: string;
  title?: string;
}

t.test('requests answer 503 while MariaDB is down and succeed again after it restarts', async (t) => {
  const mariadb = await startPrivateMariaDb(t);
  const w = await pullWorld(t, { env: { DB_HOST: mariadb.host } });
  const index = await openPull(w, 'before-outage', { 'before.txt': 'b\n' });
  const auth = await w.tokenHeader('alice');
  const url = (path: string) => new URL(path, w.baseUrl);

  let phase: Answer['phase'] = 'up';
  let serial = 0;
  const answers: Answer[] = [];
  async function send(what: string, init: RequestInit, title?: string): Promise<Answer> {
    const started = phase;
    let answer: Answer;
    try {
      const res = await fetch(url(what.split(' ')[1]!), { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
      answer = { phase: started, what, status: res.status, body: await res.text(), title };
    } catch (err) {
      answer = { phase: started, what, status: 'no answer', body: String(err), title };
    }
    answers.push(answer);
    return answer;
  }
  const get = (path: string) => send(`GET ${path}`, { headers: auth });
  const createIssue = (title: string) =>
    send('POST /api/v1/repos/alice/widget/issues', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title }) }, title);

  const written: Array<{ title: string; number: number }> = [];
  for (let i = 0; i < 5; i++) {
    const r = await createIssue(`before ${i}`);
    t.equal(r.status, 201, r.status === 201 ? `"before ${i}" created` : r.body);
    written.push({ title: `before ${i}`, number: JSON.parse(r.body).number });
  }

  // Three clients: reads of several kinds and, now and then, a write with a title of its own.
  let loading = true;
  const clients = [0, 1, 2].map(async (client) => {
    while (loading) {
      const n = serial++;
      if (n % 4 === 3) await createIssue(`load ${client}-${n}`);
      else await get(['/api/v1/repos/alice/widget', '/api/v1/repos/alice/widget/issues?limit=5', `/api/v1/repos/alice/widget/pulls/${index}`][n % 3]!);
    }
  });

  const answeredIn = (p: Answer['phase']) => answers.filter((a) => a.phase === p).length;
  t.ok(await waitFor(async () => answeredIn('up') >= 10, 30_000, 50), 'load is running');
  await mariadb.kill();
  phase = 'down';
  t.ok(await waitFor(async () => answeredIn('down') >= 12, 60_000, 50), 'requests kept coming while MariaDB was down');
  await mariadb.start();
  phase = 'back';
  const recovered = await waitFor(async () => (await get('/api/v1/repos/alice/widget')).status === 200, 30_000, 250);
  t.ok(recovered, 'the same service answers 200 again after MariaDB restarted');
  loading = false;
  await Promise.all(clients);

  for (const a of answers) {
    const fine = (typeof a.status === 'number' && a.status < 300) || a.status === 503;
    if (!fine) t.fail(`${a.what} (${a.phase}) answered ${a.status}: ${a.body.slice(0, 300)}`);
  }
  const unavailable = answers.filter((a) => a.status === 503);
  t.ok(unavailable.some((a) => a.phase === 'down'), 'the outage was seen: 503 answers while MariaDB was down');
  for (const a of unavailable) {
    const body = JSON.parse(a.body) as Record<string, unknown>;
    if (Object.keys(body).sort().join() !== 'message,url' || typeof body.message !== 'string') t.fail(`503 not in Gitea's shape: ${a.body}`);
  }
  t.pass(`${answers.length} answers: ${answers.filter((a) => a.status !== 503).length} successes, ${unavailable.length} times 503`);

  // After recovery, reads and writes work in a row, not just now and then.
  for (let i = 0; i < 5; i++) {
    const r = await createIssue(`after ${i}`);
    t.equal(r.status, 201, r.status === 201 ? `"after ${i}" created` : r.body);
    t.equal((await get(`/api/v1/repos/alice/widget/issues/${JSON.parse(r.body).number}`)).status, 200, `"after ${i}" read back`);
  }

  // Everything acknowledged is there once; nothing was written twice.
  const rows: Array<{ title: string; index: number }> = await w.db('issues').where({ repo_id: 1 }).select('title', 'index');
  const countOf = (title: string) => rows.filter((r) => r.title === title).length;
  for (const { title, number } of written) {
    t.same(rows.filter((r) => r.title === title).map((r) => Number(r.index)), [number], `"${title}" written before the outage is intact`);
  }
  for (const a of answers.filter((x) => x.title)) {
    if (a.status === 201 && countOf(a.title!) !== 1) t.fail(`"${a.title}" was acknowledged but is there ${countOf(a.title!)} times`);
    if (countOf(a.title!) > 1) t.fail(`"${a.title}" was written ${countOf(a.title!)} times`);
  }
  t.equal(new Set(rows.map((r) => Number(r.index))).size, rows.length, 'issue numbers are unique');
  assertRepositorySound(t, repoDiskPath(w.config, 'alice', 'widget'));
  await assertPullsAgree(t, w);
});

t.test('a query on a connection whose server went away counts as the database being unavailable', async (t) => {
  // What a pooled connection answers after MariaDB died under it: mysql2's fatal error with no code.
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' });
  connection.destroy();
  const err = await connection.query('SELECT 1').then(() => null, (e: unknown) => e);
  t.match(err, { message: /closed state/, fatal: true }, 'mysql2 refuses with its closed-state error');
  t.ok(isDatabaseUnavailable(err), 'answered 503, not 500');
  t.notOk(isDatabaseUnavailable(Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' })), 'an ordinary query error is not an outage');
});
