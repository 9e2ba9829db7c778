// The retries behind "racing operations never answer 500", on their own: with this process's
// in-flight limit lifted, 50 identical merges overflow the Temporal server's limit of 10 updates
// in flight per workflow. The server refuses the overflow (RESOURCE_EXHAUSTED), drops its state of
// the run and, in some rounds, rejects updates it had sent the worker as unprocessed; the client
// sends each again, so every request still gets the answer for the state it finds.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { baseLog, merge, openPull, refOf } from './world.js';

const ROUNDS = 3;

t.test('50 identical merges past the server\'s in-flight limit: retried, one merge, no 5xx', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3' });
  const client = w.pullWorkflows!;
  client.inFlightPerWorkflow = 1000;
  // Without the limit the retries themselves overflow the server again until the burst drains: on a
  // loaded machine that outlasts the usual 10 s (whose end answers 503), so they get a minute here.
  client.retryBudgetMs = 60_000;
  for (let round = 0; round < ROUNDS; round++) {
    const p = await openPull(w, `unlimited-${round}`, { [`unlimited-${round}.txt`]: 'u\n' });
    const before = refOf(w, 'refs/heads/main')!;
    const answers = await Promise.all(Array.from({ length: 50 }, () => merge(w, p, { do: 'merge' })));
    const statuses = answers.map((a) => a.statusCode);
    t.equal(statuses.filter((s) => s >= 500).length, 0, `round ${round}: no 5xx ${answers.find((a) => a.statusCode >= 500)?.body ?? ''}`);
    t.equal(statuses.filter((s) => s === 200).length, 1, `round ${round}: one 200`);
    t.equal(statuses.filter((s) => s === 405).length, 49, `round ${round}: 49 × 405`);
    t.equal(baseLog(w, `${before}..refs/heads/main`, 100).filter((c) => c.subject.startsWith('Merge pull request')).length, 1, `round ${round}: one merge commit`);
  }
  t.comment(`attempts sent again: ${JSON.stringify(client.retried)}`);
  t.ok(client.retried.busy + client.retried['never-ran'] > 0, 'the server refused updates past its limit, and they were sent again');
});
