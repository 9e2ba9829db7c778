// The allocator the launcher gives the service (app/allocator.ts): which environment it sets, and
// that a process started with it runs on jemalloc with the background thread that returns freed pages.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allocatorEnv, JEMALLOC_CONF } from '../../app/allocator.js';
import { projectRoot } from '../../app/paths.js';

t.test('the environment chosen', async (t) => {
  t.same(allocatorEnv({ PULLHOST_ALLOCATOR: 'system' }), {}, 'PULLHOST_ALLOCATOR=system keeps the system allocator');
  t.same(allocatorEnv({ LD_PRELOAD: '/opt/lib/libjemalloc.so.2' }), {}, 'an allocator already preloaded is left alone');
  t.same(allocatorEnv({ PULLHOST_JEMALLOC_PATH: '/opt/je.so' }), { LD_PRELOAD: '/opt/je.so', MALLOC_CONF: JEMALLOC_CONF }, 'a library named by PULLHOST_JEMALLOC_PATH');
  t.same(allocatorEnv({ PULLHOST_JEMALLOC_PATH: '/opt/je.so', LD_PRELOAD: '/opt/other.so', MALLOC_CONF: 'narenas:2' }),
    { LD_PRELOAD: '/opt/je.so /opt/other.so', MALLOC_CONF: 'narenas:2' }, 'another preload and the operator\'s MALLOC_CONF are kept');
});

t.test('a process started with it runs on jemalloc, with its background thread', async (t) => {
  const env = allocatorEnv({ PATH: process.env.PATH });
  const script = `const { runningAllocator } = await import(${JSON.stringify(pathToFileURL(join(projectRoot, 'dist', 'app', 'allocator.js')).href)});
    const { readdirSync, readFileSync } = await import('node:fs');
    const threads = readdirSync('/proc/self/task').map((id) => readFileSync('/proc/self/task/' + id + '/comm', 'utf8').trim());
    process.stdout.write(JSON.stringify({ allocator: runningAllocator(), threads }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  t.equal(child.status, 0, child.stderr);
  const seen = JSON.parse(child.stdout) as { allocator: string; threads: string[] };
  if (!env.LD_PRELOAD) {
    // A machine without libjemalloc2: the service runs on the system allocator and says so.
    t.equal(seen.allocator, 'system');
    return;
  }
  t.equal(seen.allocator, 'jemalloc');
  t.ok(seen.threads.some((name) => name.startsWith('jemalloc_bg')), `a jemalloc background thread runs: ${seen.threads.join(', ')}`);
  const plain = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
  t.equal(JSON.parse(plain.stdout).allocator, 'system', 'without it, the system allocator');
});
