#!/usr/bin/env node
// `npm run bench`: makes sure MariaDB answers, then runs every benchmark (dist/bench/run.js), which
// writes bench/RESULTS.md. Arguments go to the runner (e.g. `npm run bench -- --only merge`).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureMariaDb } from './services.mjs';
import { reexecOnPinnedNode } from './node-runtime.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!reexecOnPinnedNode(import.meta.url)) {
  await ensureMariaDb();
  const child = spawn(process.execPath, [join(root, 'dist', 'bench', 'run.js'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  child.once('exit', (code) => process.exit(code ?? 1));
}
