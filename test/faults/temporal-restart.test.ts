// The Temporal server restarts while an auto-merge waits for its checks: the schedule survives and
// fires on the success status posted after the restart.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../app/temporal-dev-server.js';
import { temporalCliPath } from '../../app/paths.js';
import { freePort } from '../helper.js';
import { pullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from '../merge/world.js';

t.test('an auto-merge scheduled before a Temporal restart fires after it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-temporal-restart-'));
  const [port, uiPort] = [await freePort(), await freePort()];
  const start = () => startDevServer({ cliPath: temporalCliPath(''), dbFile: join(dir, 'temporal.db'), port, uiPort });
  let dev: DevServer = await start();
  t.teardown(async () => {
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const w = await pullWorld(t, { temporalAddress: dev.address });
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci'],
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const p = await openPull(w, 'feature-durable', { 'durable.txt': 'd\n' });
  const head = refOf(w, `refs/pull/${p}/head`)!;
  const scheduled = await merge(w, p, { do: 'merge', merge_when_checks_succeed: true });
  t.equal(scheduled.statusCode, 201, scheduled.body);

  await dev.stop();
  dev = await start();

  const status = await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci' } });
  t.equal(status.statusCode, 201, status.body);
  const merged = await waitFor(async () => (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}/merge`, as: 'alice' })).statusCode === 204, 60_000, 200);
  t.ok(merged, 'the auto-merge fired after the restart');
  const pr = (await w.api({ url: `/api/v1/repos/alice/widget/pulls/${p}`, as: 'alice' })).json();
  t.equal(pr.merge_commit_sha, refOf(w, 'refs/heads/main'), 'one merge, on the base branch');
});
