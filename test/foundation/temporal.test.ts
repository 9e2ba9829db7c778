import t from 'tap';
import { pingUpdate, type PullKey } from '../../workflows/pull-messages.js';
import type { Db } from '../../db/connection.js';
import { startTestServices } from '../helper.js';
import { pullIndexKey, pullOperationKey, pullRepositoryKey, pullStateKey } from '../../workflows/search-attributes.js';
import { nowUnix } from '../../db/time.js';

/**
 * The rows a pull request workflow reads: an owner, a repository and a pull request issue. Tests of
 * this file share a namespace, so each uses its own index to keep the workflow ids apart.
 */
async function seedPull(db: Db, owner: string, repo: string, index: number): Promise<PullKey> {
  const now = nowUnix();
  const [userId] = await db('users').insert({ lower_name: owner.toLowerCase(), name: owner, created_unix: now, updated_unix: now });
  const [repoId] = await db('repositories').insert({ owner_id: userId, lower_name: repo.toLowerCase(), name: repo, created_unix: now, updated_unix: now });
  await db('issues').insert({ repo_id: repoId, index, title: 'x', content: '', is_pull: true, created_unix: now, updated_unix: now });
  return { repoId: Number(repoId), index };
}

t.test('the pull request workflow starts with Update-With-Start and answers the update', async (t) => {
  const { db, pullWorkflows } = await startTestServices(t, { temporal: true });
  const key = await seedPull(db, 'alice', 'r', 1);

  const first = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r1' }], 'req-1');
  t.equal(first.status, 200);
  t.match(first.body, { workflowId: pullWorkflows!.workflowId(key), operations: 1, summary: { exists: true, isClosed: false, hasMerged: false } });

  const second = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r2' }], 'req-2');
  t.match(second.body, { operations: 2 }, 'the same run took the second operation');

  const retried = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r1-again' }], 'req-1');
  t.same(retried, first, 'a retried update id gets the first answer back, not a second operation');

  const description = await pullWorkflows!.client.workflow.getHandle(pullWorkflows!.workflowId(key)).describe();
  t.equal(description.status.name, 'RUNNING');
  t.match(description.memo, { repoId: key.repoId, index: 1 }, 'the memo names the pull request for the Temporal UI');
});

t.test('operators find a pull request workflow by its search attributes and read the request id in its memo', async (t) => {
  const { db, pullWorkflows } = await startTestServices(t, { temporal: true });
  const key = await seedPull(db, 'Erin', 'Tools', 4);
  await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'req-abc' }], 'ping-1');

  const handle = pullWorkflows!.client.workflow.getHandle(pullWorkflows!.workflowId(key));
  const description = await handle.describe();
  t.same(description.typedSearchAttributes.get(pullRepositoryKey), 'Erin/Tools');
  t.same(description.typedSearchAttributes.get(pullIndexKey), 4);
  t.same(description.typedSearchAttributes.get(pullStateKey), 'open');
  t.equal(description.typedSearchAttributes.get(pullOperationKey), undefined, 'no operation is running between operations');
  t.match(description.memo, { repository: 'Erin/Tools', state: 'open', lastOperation: 'ping', lastRequestId: 'req-abc', operation: null });

  // What the README tells operators to type into the Temporal UI's search box.
  const query = `PullRepository = "Erin/Tools" AND PullIndex = 4`;
  const found = async () => {
    const ids: string[] = [];
    for await (const w of pullWorkflows!.client.workflow.list({ query })) ids.push(w.workflowId);
    return ids;
  };
  let ids: string[] = [];
  for (let i = 0; i < 50 && ids.length === 0; i++) {
    ids = await found();
    if (ids.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  t.same(ids, [pullWorkflows!.workflowId(key)], 'the visibility query finds exactly this workflow');
});

t.test('a long-lived workflow continues as new and keeps its state', async (t) => {
  const services = await startTestServices(t, { temporal: true, env: { TEMPORAL_HISTORY_EVENT_LIMIT: '40' } });
  const { db, pullWorkflows } = services;
  const key = await seedPull(db, 'fay', 'r', 7);
  const handle = pullWorkflows!.client.workflow.getHandle(pullWorkflows!.workflowId(key));

  const ping = async (n: number) => {
    // The update that lands while a run hands over to the next is retried, as the API does.
    for (let attempt = 0; ; attempt++) {
      try {
        return await pullWorkflows!.execute(key, pingUpdate, [{ requestId: `r${n}` }], `ping-${n}`);
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const first = await ping(1);
  const firstRun = (await handle.describe()).runId;
  let n = 1;
  let last = first;
  while ((await handle.describe()).runId === firstRun && n < 40) last = await ping(++n);
  const second = await handle.describe();
  t.not(second.runId, firstRun, `continued as new after ${n} operations`);
  t.ok(second.historyLength < 40, `the new run's history is short (${second.historyLength} events)`);
  last = await ping(++n);
  // An update retried across the hand-over may run in both runs (pings are not journalled as merges
  // are), so the count is at least the number of pings.
  t.ok((last.body as { operations: number }).operations >= n, 'the operation count carried over to the new run');
  t.match((await handle.describe()).memo, { lastRequestId: `r${n}` });
  let runs: Array<{ runId: string; status: string }> = [];
  for (let i = 0; i < 50; i++) {
    runs = [];
    for await (const w of pullWorkflows!.client.workflow.list({ query: `WorkflowId = "${pullWorkflows!.workflowId(key)}"` })) runs.push({ runId: w.runId, status: w.status.name });
    if (runs.some((r) => r.runId === firstRun && r.status === 'CONTINUED_AS_NEW')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(runs.some((r) => r.runId === firstRun && r.status === 'CONTINUED_AS_NEW'), 'the first run is listed as continued-as-new, its history kept for the UI');
});
