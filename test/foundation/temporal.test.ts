import t from 'tap';
import { pingUpdate, pullWorkflowId } from '../../workflows/pull-messages.js';
import { startTestServices } from '../helper.js';
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
