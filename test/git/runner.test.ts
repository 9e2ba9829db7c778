import t from 'tap';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNotOption, GitError, gitEnvironment, gitOk, runGit, runGitBuffer, spawnGit, spawnGitReadable } from '../../git/runner.js';
import { spawn } from 'node:child_process';
import { spawnHelperPid } from '../../git/spawn-helper-client.js';
import { bareRepo, tempDir } from './helpers.js';

t.test('runGit returns the exit code without throwing', async (t) => {
  const dir = await tempDir(t);
  const r = await runGit(['rev-parse', '--git-dir'], { cwd: dir });
  t.not(r.exitCode, 0, 'not a repository');
  t.match(r.stderr, /not a git repository/);
  t.equal(r.stdout, '');
});

t.test('okExitCodes and gitOk throw a typed GitError', async (t) => {
  const dir = await tempDir(t);
  const err = await runGit(['rev-parse', '--git-dir'], { cwd: dir, okExitCodes: [0] }).catch((e: unknown) => e);
  t.ok(err instanceof GitError);
  t.equal((err as GitError).exitCode, 128);
  t.match((err as GitError).stderr, /not a git repository/);
  t.equal((err as GitError).reason, 'exit');
  await t.rejects(gitOk(['rev-parse', '--git-dir'], { cwd: dir }), GitError);
  const ok = await runGit(['rev-parse', '--git-dir'], { cwd: dir, okExitCodes: [0, 128] });
  t.equal(ok.exitCode, 128, 'an accepted non-zero code is returned');
});

t.test('input goes to stdin and buffers stay bytes', async (t) => {
  const repo = await bareRepo(t);
  const bytes = Buffer.from([0, 1, 2, 255, 10]);
  const sha = (await gitOk(['hash-object', '-w', '--stdin'], { cwd: repo, input: bytes })).trim();
  const r = await runGitBuffer(['cat-file', 'blob', sha], { cwd: repo, okExitCodes: [0] });
  t.same([...r.stdout], [...bytes]);
});

t.test('timeout kills git and says so', async (t) => {
  const repo = await bareRepo(t);
  // hash-object --stdin waits for stdin, which stays open when no input is given.
  const err = await runGit(['hash-object', '--stdin'], { cwd: repo, timeoutMs: 300 }).catch((e: unknown) => e);
  t.ok(err instanceof GitError);
  t.equal((err as GitError).reason, 'timeout');
});

t.test('maxBuffer bounds the output', async (t) => {
  const repo = await bareRepo(t);
  const sha = (await gitOk(['hash-object', '-w', '--stdin'], { cwd: repo, input: 'x'.repeat(100_000) })).trim();
  const err = await runGit(['cat-file', 'blob', sha], { cwd: repo, maxBuffer: 1000 }).catch((e: unknown) => e);
  t.ok(err instanceof GitError);
  t.equal((err as GitError).reason, 'max-buffer');
});

t.test('the environment ignores user config and inherited git variables', async (t) => {
  const repo = await bareRepo(t);
  const env = gitEnvironment();
  t.equal(env.GIT_TERMINAL_PROMPT, '0');
  t.equal(env.GIT_CONFIG_NOSYSTEM, '1');
  t.equal(env.LOCAL_GIT_DIRECTORY, '/usr');
  t.equal(env.GIT_EXEC_PATH, '/usr/lib/git-core');
  t.not(env.HOME, process.env.HOME);
  // A ~/.gitconfig in the neutral HOME would be read if GIT_CONFIG_GLOBAL were not /dev/null.
  await writeFile(join(env.HOME!, '.gitconfig'), '[user]\n\tname = Intruder\n');
  t.teardown(() => rm(join(env.HOME!, '.gitconfig'), { force: true }));
  const saved = process.env.GIT_DIR;
  process.env.GIT_DIR = '/nonexistent';
  t.teardown(() => {
    if (saved === undefined) delete process.env.GIT_DIR;
    else process.env.GIT_DIR = saved;
  });
  const r = await runGit(['config', 'user.name'], { cwd: repo });
  t.equal(r.exitCode, 1, 'no user.name from any config');
  t.equal((await gitOk(['rev-parse', '--is-bare-repository'], { cwd: repo })).trim(), 'true', 'GIT_DIR from the process is ignored');
  // Non-builtin commands are found through GIT_EXEC_PATH.
  const help = await runGit(['http-backend'], { cwd: repo, env: { REQUEST_METHOD: 'GET', PATH_INFO: '/x' } });
  t.not(help.stderr, '', 'git-http-backend ran');
});

t.test('assertNotOption refuses option-like values', async (t) => {
  t.throws(() => assertNotOption('-c'));
  t.throws(() => assertNotOption('--upload-pack=x'));
  t.throws(() => assertNotOption(''));
  t.throws(() => assertNotOption('a\0b'));
  t.doesNotThrow(() => assertNotOption('main'));
});

t.test('spawnGit streams; spawnGitReadable fails on a bad exit', async (t) => {
  const repo = await bareRepo(t);
  const child = spawnGit(['hash-object', '--stdin'], { cwd: repo });
  child.stdin.end('hello\n');
  let out = '';
  for await (const chunk of child.stdout) out += String(chunk);
  t.equal(out.trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');

  const good = spawnGitReadable(['rev-parse', '--is-bare-repository'], { cwd: repo });
  let text = '';
  for await (const chunk of good) text += String(chunk);
  t.equal(text.trim(), 'true');

  const bad = spawnGitReadable(['cat-file', '-p', 'deadbeef'], { cwd: repo });
  await t.rejects((async () => { for await (const _ of bad) void _; })(), GitError);
});

t.test('buffered git runs in the spawn helper, never forked from this process', async (t) => {
  const repo = await bareRepo(t);
  // A shell alias prints the parent of the git process that runs it.
  const parent = Number((await gitOk(['-c', 'alias.parent=!sed -n "s/^PPid:[[:space:]]*//p" /proc/$PPID/status', 'parent'], { cwd: repo })).trim());
  const helper = spawnHelperPid();
  t.ok(helper !== null && helper !== process.pid, 'a helper process runs');
  t.equal(parent, helper, 'git is the helper\'s child');
});

t.test('a helper that dies fails the calls in flight and is started again', async (t) => {
  const repo = await bareRepo(t);
  await gitOk(['--version'], { cwd: repo });
  const first = spawnHelperPid()!;
  // hash-object --stdin with no input waits until it is killed.
  const waiting = runGit(['hash-object', '--stdin'], { cwd: repo, timeoutMs: 60_000 }).catch((e: unknown) => e);
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.kill(first, 'SIGKILL');
  const err = await waiting;
  t.ok(err instanceof GitError && err.reason === 'spawn', 'the call in flight fails as a spawn failure');
  t.equal((await gitOk(['rev-parse', '--is-bare-repository'], { cwd: repo })).trim(), 'true', 'the next call works');
  t.not(spawnHelperPid(), first, 'in a new helper');
});

t.test('the helper does not keep a finished process alive', async (t) => {
  const runner = new URL('../../git/runner.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const { gitOk } = await import(${JSON.stringify(runner)}); process.stdout.write(await gitOk(['--version'], { cwd: '/' }));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(false); }, 15_000);
    child.on('exit', () => { clearTimeout(timer); resolve(true); });
  });
  t.ok(exited, 'the process ended on its own once its git call was answered');
  t.match(out, /^git version /);
});
