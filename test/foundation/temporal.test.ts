import t from 'tap';
import { pingUpdate, pullWorkflowId } from '../../workflows/pull-messages.js';
import { startTestServices } from '../helper.js';
import { pullIndexKey, pullOperationKey, pullRepositoryKey, pullStateKey } from '../../workflows/search-attributes.js';
import { nowUnix } from '../../db/time.js';

t.test('the pull request workflow starts with Update-With-Start and answers the update', async (t) => {
  const { db, pullWorkflows } = await startTestServices(t, { temporal: true });
  const now = nowUnix();
  const [userId] = await db('users').insert({ lower_name: 'alice', name: 'alice', created_unix: now, updated_unix: now });
  const [repoId] = await db('repositories').insert({ owner_id: userId, lower_name: 'r', name: 'r', created_unix: now, updated_unix: now });
  await db('issues').insert({ repo_id: repoId, index: 1, title: 'x', content: '', is_pull: true, created_unix: now, updated_unix: now });
  const key = { repoId: Number(repoId), index: 1 };

  const first = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r1' }], 'req-1');
  t.equal(first.status, 200);
  t.match(first.body, { workflowId: pullWorkflowId(key), operations: 1, summary: { exists: true, isClosed: false, hasMerged: false } });

  const second = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r2' }], 'req-2');
  t.match(second.body, { operations: 2 }, 'the same run took the second operation');

  const retried = await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'r1-again' }], 'req-1');
  t.same(retried, first, 'a retried update id gets the first answer back, not a second operation');

  const description = await pullWorkflows!.client.workflow.getHandle(pullWorkflowId(key)).describe();
  t.equal(description.status.name, 'RUNNING');
  t.match(description.memo, { repoId: key.repoId, index: 1 }, 'the memo names the pull request for the Temporal UI');
});

t.test('operators find a pull request workflow by its search attributes and read the request id in its memo', async (t) => {
  const { db, pullWorkflows } = await startTestServices(t, { temporal: true });
  const now = nowUnix();
  const [userId] = await db('users').insert({ lower_name: 'erin', name: 'Erin', created_unix: now, updated_unix: now });
  const [repoId] = await db('repositories').insert({ owner_id: userId, lower_name: 'tools', name: 'Tools', created_unix: now, updated_unix: now });
  await db('issues').insert({ repo_id: repoId, index: 4, title: 'x', content: '', is_pull: true, created_unix: now, updated_unix: now });
  const key = { repoId: Number(repoId), index: 4 };
  await pullWorkflows!.execute(key, pingUpdate, [{ requestId: 'req-abc' }], 'ping-1');

  const handle = pullWorkflows!.client.workflow.getHandle(pullWorkflowId(key));
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
  t.same(ids, [pullWorkflowId(key)], 'the visibility query finds exactly this workflow');
});

t.test('a long-lived workflow continues as new and keeps its state', async (t) => {
  const services = await startTestServices(t, { temporal: true, env: { TEMPORAL_HISTORY_EVENT_LIMIT: '40' } });
  const { db, pullWorkflows } = services;
  const now = nowUnix();
  const [userId] = await db('users').insert({ lower_name: 'fay', name: 'fay', created_unix: now, updated_unix: now });
  const [repoId] = await db('repositories').insert({ owner_id: userId, lower_name: 'r', name: 'r', created_unix: now, updated_unix: now });
  // Tests of this file share a namespace: an index no other test uses keeps the workflow ids apart.
  await db('issues').insert({ repo_id: repoId, index: 7, title: 'x', content: '', is_pull: true, created_unix: now, updated_unix: now });
  const key = { repoId: Number(repoId), index: 7 };
  const handle = pullWorkflows!.client.workflow.getHandle(pullWorkflowId(key));

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
  t.match(last.body, { operations: n }, 'the operation count carried over to the new run');
  t.match((await handle.describe()).memo, { lastRequestId: `r${n}` });
  let runs: Array<{ runId: string; status: string }> = [];
  for (let i = 0; i < 50; i++) {
    runs = [];
    for await (const w of pullWorkflows!.client.workflow.list({ query: `WorkflowId = "${pullWorkflowId(key)}"` })) runs.push({ runId: w.runId, status: w.status.name });
    if (runs.some((r) => r.runId === firstRun && r.status === 'CONTINUED_AS_NEW')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.ok(runs.some((r) => r.runId === firstRun && r.status === 'CONTINUED_AS_NEW'), 'the first run is listed as continued-as-new, its history kept for the UI');
});
