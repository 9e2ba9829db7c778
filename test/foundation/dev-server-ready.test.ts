// The embedded Temporal dev server counts as started only once its frontend answers gRPC: its port
// opens first, and a worker that connected in between timed out on a starved core (a one-core CI
// run of serve.test.ts, restarting on its state file).
import t from 'tap';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../../app/temporal-dev-server.js';
import { freePort, portOpen } from '../../app/ports.js';

t.test('a port that opens but never speaks gRPC is not a started dev server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-fake-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // A stand-in for the Temporal CLI: it listens on the port it is given and never answers.
  writeFileSync(join(dir, 'silent.mjs'), [
    "import { createServer } from 'node:net';",
    "const port = Number(process.argv[process.argv.indexOf('--port') + 1]);",
    'createServer(() => {}).listen(port, "127.0.0.1");',
  ].join('\n'));
  const cli = join(dir, 'temporal');
  writeFileSync(cli, `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'silent.mjs')}" "$@"\n`);
  chmodSync(cli, 0o755);
  const port = await freePort();

  const started = Date.now();
  // Stopped at once if it counts as started, so a regression fails here instead of hanging the run.
  const outcome = await startDevServer({ cliPath: cli, port, uiPort: await freePort(), readyTimeoutMs: 4000 })
    .then(async (server) => { await server.stop(); return 'started'; }, (err: Error) => err.message);
  t.match(outcome, /^the Temporal dev server did not answer gRPC on its port within 4 s$/);
  t.ok(Date.now() - started >= 4000, 'it waited for the frontend, not only for the port');
  // The stand-in was killed, so its port is free again.
  for (let i = 0; i < 50 && (await portOpen(port)); i++) await new Promise((r) => setTimeout(r, 100));
  t.notOk(await portOpen(port), 'the child was stopped');
});
