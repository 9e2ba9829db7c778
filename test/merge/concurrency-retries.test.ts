// The retries behind "racing operations never answer 500", on their own: with this process's
// in-flight limit lifted, 50 identical merges overflow the Temporal server's limit of 10 updates
// in flight per workflow. The server refuses the overflow (RESOURCE_EXHAUSTED), drops its state of
// the run and, in some rounds, rejects updates it had sent the worker as unprocessed; the client
// sends each again, so every request still gets the answer for the state it finds.
// Through HTTP the requests reach Temporal only as fast as the routes' SQLite reads let them, so
// whether they overflow it depends on the machine's load; the last rounds send 40 updates at once
// straight from the API's client to a running workflow, which overflows the server on two cores
// (on one, the HTTP rounds do and the bursts do not).
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { pullWorld } from '../pulls/fixtures.js';
import { mergeUpdate } from '../../workflows/pull-messages.js';
import { directMerge, merge, mergesSince, openPull, refOf, widgetRepoId } from './world.js';

const ROUNDS = 3;
const BURST = 40;

t.test('50 identical merges past the server\'s in-flight limit: retried, one merge, no 5xx', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3' });
  const client = w.pullWorkflows!;
  client.inFlightPerWorkflow = 1000;
  // Without the limit the retries themselves overflow the server again until the burst drains: on a
  // loaded machine that outlasts the usual 10 s (whose end answers 503), so they get nearly the whole
  // operation deadline here: each time the server drops its state of the run, the worker's workflow
  // task is refused and the run waits out a task timeout (CI once needed more than a minute).
  client.retryBudgetMs = client.operationTimeoutMs - 10_000;
  for (let round = 0; round < ROUNDS; round++) {
    const p = await openPull(w, `unlimited-${round}`, { [`unlimited-${round}.txt`]: 'u\n' });
    const before = refOf(w, 'refs/heads/main')!;
    const answers = await Promise.all(Array.from({ length: 50 }, () => merge(w, p, { do: 'merge' })));
    const statuses = answers.map((a) => a.statusCode);
    t.equal(statuses.filter((s) => s >= 500).length, 0, `round ${round}: no 5xx ${answers.find((a) => a.statusCode >= 500)?.body ?? ''}`);
    t.equal(statuses.filter((s) => s === 200).length, 1, `round ${round}: one 200`);
    t.equal(statuses.filter((s) => s === 405).length, 49, `round ${round}: 49 × 405`);
    t.equal(mergesSince(w, before), 1, `round ${round}: one merge commit`);
  }
  // Bursts without HTTP in front: 40 merge updates (four times the server's limit) sent at once to a
  // running workflow, until one overflows the server (the first does, nearly always; each must
  // answer right either way). A hundred took minutes to drain on a loaded machine.
  const repoId = await widgetRepoId(w);
  const request = directMerge(w);
  const sentAgain = () => client.retried.busy + client.retried['never-ran'];
  const sentAgainBefore = sentAgain();
  for (let burst = 0; burst < 3 && sentAgain() === sentAgainBefore; burst++) {
    const p = await openPull(w, `burst-${burst}`, { [`burst-${burst}.txt`]: 'b\n' });
    const before = refOf(w, 'refs/heads/main')!;
    // Started first (its answer to a cancel with nothing scheduled), so the burst meets a running workflow.
    const started = await w.api({ method: 'DELETE', url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' });
    t.ok(started.statusCode < 500, `burst ${burst}: the workflow answered a cancel (${started.statusCode})`);
    const outcomes = await Promise.all(Array.from({ length: BURST }, () => client.execute({ repoId, index: p }, mergeUpdate, [request], randomUUID())));
    const statuses = outcomes.map((o) => o.status);
    t.equal(statuses.filter((s) => s === 200).length, 1, `burst ${burst}: one 200`);
    t.equal(statuses.filter((s) => s === 405).length, BURST - 1, `burst ${burst}: ${BURST - 1} × 405`);
    t.equal(mergesSince(w, before), 1, `burst ${burst}: one merge commit`);
  }
  t.comment(`attempts sent again: ${JSON.stringify(client.retried)}; by the bursts: ${sentAgain() - sentAgainBefore}`);
  // On one core the rounds through HTTP overflow the server and the bursts do not (two CI runs
  // pinned to a core each): what must hold is that the retries were exercised, by either.
  t.ok(sentAgain() > 0, 'the server refused updates past its limit (in the rounds or the bursts), and they were sent again');
});
