// No Temporal client failure becomes a 500: an operation nobody answers before the deadline (no
// worker polls its task queue) and one whose frontend cannot be reached (the Temporal server is
// stopped) each answer 503 with Retry-After, and the log names the request.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../app/temporal-dev-server.js';
import { temporalCliPath } from '../../app/paths.js';
import { freePort } from '../helper.js';
import { pullWorld } from '../pulls/fixtures.js';
import { startApiProcess } from '../faults/worker-process.js';
import { directMerge, merge, openPull, refOf, waitFor, widgetRepoId } from './world.js';
import { runPullOperation } from '../../api/pull-operations.js';
import { mergeUpdate, type MergeRequest } from '../../workflows/pull-messages.js';

t.test('a deadline and an unreachable frontend answer 503 with Retry-After, never 500', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-temporal-down-'));
  const dev = await startDevServer({ cliPath: temporalCliPath(process.env.TEMPORAL_CLI_PATH ?? ''), dbFile: join(dir, 'temporal.db'), port: await freePort(), uiPort: await freePort() });
  t.teardown(async () => {
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const w = await pullWorld(t, { temporalAddress: dev.address });
  const p = await openPull(w, 'unanswered', { 'unanswered.txt': 'u\n' });
  const before = refOf(w, 'refs/heads/main');

  // An API process of its own, whose log this test reads.
  const { api, base } = await startApiProcess(t, w.config, { LOG_LEVEL: 'warn' });
  const auth = await w.tokenHeader('alice');

  // Arguments the workflow's validator refuses are the caller's mistake: 422, not a retry.
  const repoId = await widgetRepoId(w);
  const odd = directMerge(w, { style: 'octopus' as MergeRequest['style'] });
  await t.rejects(runPullOperation(w.app.services, { repoId, index: p }, mergeUpdate, odd, { updateId: 'refused-style', requestId: 'race-refused-1', log: w.app.log }), { status: 422, message: /unknown merge style/ });

  // No worker: the update waits in Temporal until the operation deadline.
  await w.worker!.shutdown();
  w.pullWorkflows!.operationTimeoutMs = 2_000;
  const late = await merge(w, p, { do: 'merge' }, 'alice', { 'x-request-id': 'race-deadline-1' });
  t.equal(late.statusCode, 503, late.body);
  t.ok(Number(late.headers['retry-after']) > 0, 'with Retry-After');
  t.match(late.json(), { message: /did not answer in time/, url: String });

  // The Temporal server is gone: the API process retries for a few seconds, then answers 503.
  await dev.stop();
  const started = Date.now();
  const res = await fetch(`${base}/api/v1/repos/alice/widget/pulls/${p}/merge`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'x-request-id': 'race-unreachable-1' }, body: JSON.stringify({ do: 'merge' }),
  });
  const took = Date.now() - started;
  const body = await res.json() as { message: string; url: string };
  t.equal(res.status, 503, JSON.stringify(body));
  t.ok(Number(res.headers.get('retry-after')) > 0, 'with Retry-After');
  t.match(body, { message: /unreachable|unavailable/, url: String });
  t.ok(took < 30_000, `answered within the retry budget (${took} ms)`);
  t.equal(res.headers.get('x-request-id'), 'race-unreachable-1');
  // (The process's log line may reach this end of the pipe just after its answer.)
  const logLine = () => api.output().split('\n').find((l) => l.includes('race-unreachable-1') && l.includes('got no answer from its workflow'));
  await waitFor(async () => logLine() !== undefined, 5_000, 50);
  const line = logLine();
  t.ok(line, `the log names the request: ${api.output().slice(-800)}`);
  t.match(JSON.parse(line ?? '{}'), { reqId: 'race-unreachable-1', kind: /busy|unavailable/ });
  t.equal(refOf(w, 'refs/heads/main'), before, 'nothing was merged');
});
