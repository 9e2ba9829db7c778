// Idempotency-Key: a retried request gets the first answer back from any API process, also after
// the workflow run that gave it has ended; the key with another request is refused (422); without a
// key every request is judged afresh. On MariaDB and on SQLite.
import t, { type Test } from 'tap';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { startApiProcess } from '../faults/worker-process.js';
import { IDEMPOTENCY_WINDOW_SECONDS, idempotencyStore } from '../../db/idempotency.js';
import { merge, mergesSince, openPull, refOf, waitFor } from './world.js';

/** A second API process (the `api` role) on the world's database and Temporal. */
async function secondApi(t: Test, w: PullWorld): Promise<(method: string, path: string, body: unknown, headers: Record<string, string>) => Promise<{ status: number; body: string; headers: Headers }>> {
  const { base } = await startApiProcess(t, w.config);
  return async (method, path, body, headers) => {
    const r = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.text(), headers: r.headers };
  };
}

async function runEnded(w: PullWorld, index: number): Promise<boolean> {
  const handle = w.pullWorkflows!.client.workflow.getHandle(w.pullWorkflows!.workflowId({ repoId: (await w.db('repositories').where({ lower_name: 'widget' }).first('id')).id, index }));
  return waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 20_000, 100);
}

for (const dbType of ['mysql', 'sqlite3'] as const) {
  t.test(`Idempotency-Key on ${dbType}`, async (t) => {
    const w = await pullWorld(t, { dbType });
    const other = await secondApi(t, w);
    const aliceToken = await w.tokenHeader('alice');

    // The first answer, given again after the run that gave it has ended, by another API process.
    const p = await openPull(w, 'keyed', { 'keyed.txt': 'k\n' });
    const before = refOf(w, 'refs/heads/main')!;
    const first = await merge(w, p, { do: 'merge' }, 'alice', { 'idempotency-key': 'merge-keyed' });
    t.equal(first.statusCode, 200, first.body);
    t.notOk(first.headers['idempotent-replayed'], 'a first answer is not a replay');
    t.ok(await runEnded(w, p), 'the merged pull request\'s workflow run has ended');
    const elsewhere = await other('POST', `/api/v1/repos/alice/widget/pulls/${p}/merge`, { do: 'merge' }, { ...aliceToken, 'idempotency-key': 'merge-keyed' });
    t.equal(elsewhere.status, 200, `another API process gives the first answer back: ${elsewhere.body}`);
    t.equal(elsewhere.headers.get('idempotent-replayed'), 'true', 'marked as a replay');
    const here = await merge(w, p, { do: 'merge' }, 'alice', { 'idempotency-key': 'merge-keyed' });
    t.equal(here.statusCode, 200, 'and so does this one');
    t.equal(mergesSince(w, before), 1, 'merged once');

    // The key with another request; the key of another user or operation; no key at all.
    const changed = await merge(w, p, { do: 'squash' }, 'alice', { 'idempotency-key': 'merge-keyed' });
    t.equal(changed.statusCode, 422, 'the key reused with a different body is refused');
    t.match(changed.json(), { message: /Idempotency-Key/, url: String });
    t.equal((await merge(w, p, { do: 'merge' }, 'dave', { 'idempotency-key': 'merge-keyed' })).statusCode, 405, 'another user\'s request with the same key is its own: already merged');
    const update = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${p}/update`, as: 'alice', headers: { 'idempotency-key': 'merge-keyed' } });
    t.equal(update.statusCode, 422, 'another operation with the same key is its own: a merged pull request cannot be updated');
    t.equal((await merge(w, p, { do: 'merge' })).statusCode, 405, 'without a key, a merge of a merged pull request is told so');

    // Many requests with one key at once: one operation, one answer.
    const q = await openPull(w, 'keyed-burst', { 'burst.txt': 'b\n' });
    const beforeBurst = refOf(w, 'refs/heads/main')!;
    const burst = await Promise.all(Array.from({ length: 10 }, () => merge(w, q, { do: 'merge' }, 'alice', { 'idempotency-key': 'burst' })));
    t.same(burst.map((r) => r.statusCode), Array(10).fill(200), 'every request with the key gets the one answer');
    t.equal(mergesSince(w, beforeBurst), 1, 'merged once');

    // Refusals are answers too; a schedule is given back, a second schedule without the key is not.
    const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: { rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'] } });
    t.equal(rule.statusCode, 201, rule.body);
    const s = await openPull(w, 'keyed-schedule', { 'schedule.txt': 's\n' });
    const schedule = { do: 'merge', merge_when_checks_succeed: true };
    t.equal((await merge(w, s, schedule, 'alice', { 'idempotency-key': 'schedule' })).statusCode, 201, 'scheduled');
    const again = await other('POST', `/api/v1/repos/alice/widget/pulls/${s}/merge`, schedule, { ...aliceToken, 'idempotency-key': 'schedule' });
    t.equal(again.status, 201, 'the schedule\'s retry gets its 201 back');
    t.equal((await merge(w, s, schedule)).statusCode, 409, 'a schedule without the key is told it is already scheduled');
    t.equal((await w.db('pull_auto_merges')).length, 1, 'one schedule');

    // What is kept: the key's hash, never the key; answers expire after 24 hours.
    const rows = await w.db('idempotency_answers').select('key_hash', 'status', 'operation');
    t.ok(rows.length >= 4 && rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash)), 'keys are stored as hashes');
    t.notOk(JSON.stringify(rows).includes('merge-keyed'), 'the key itself is not stored');
    await w.db('idempotency_answers').update({ created_unix: Math.floor(Date.now() / 1000) - IDEMPOTENCY_WINDOW_SECONDS - 1 });
    const expiredIds = (await w.db('idempotency_answers').select('id')).map((r) => Number(r.id));
    const expired = await merge(w, p, { do: 'merge' }, 'alice', { 'idempotency-key': 'merge-keyed' });
    t.equal(expired.statusCode, 405, 'after 24 hours the key names a new request, judged afresh');
    t.notOk(expired.headers['idempotent-replayed']);
    // A claim prunes in the background once a minute per process, so on a slow run it may have
    // deleted them first: what counts is that none of them is left.
    await idempotencyStore(w.db).prune();
    t.equal((await w.db('idempotency_answers').whereIn('id', expiredIds)).length, 0, `expired answers are pruned (${expiredIds.length})`);
    t.ok(expiredIds.length >= 4, 'there were answers to prune');
    t.equal((await w.db('idempotency_answers').where('created_unix', '<', Math.floor(Date.now() / 1000) - IDEMPOTENCY_WINDOW_SECONDS)).length, 0, 'none older than the window is left');
  });
}
