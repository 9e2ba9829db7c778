// The disk under a repository fills up, then turns read-only: a push over smart HTTP, branch
// creation, a pull request update and merge (through its Temporal workflow) fail cleanly without
// half-written refs, and work once the storage is back. The faults are real: a small tmpfs mounted
// over the owner's directory, filled to the last page or remounted read-only, since the tests run
// as root and permissions alone would not stop a write.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoDiskPath } from '../../core/repositories.js';
import { pullWorld, type PullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf, waitFor } from '../merge/world.js';
import { assertPullsAgree, assertRepositorySound, refsOf } from './consistency.js';

/** A way the repository's storage fails, and how it recovers. */
interface StorageFault {
  name: string;
  begin(): void;
  end(): void;
}

function mountOrThrow(args: string[]): void {
  const r = spawnSync('mount', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount ${args.join(' ')}: ${r.stderr}`);
}

/**
 * Moves `dir` onto a small tmpfs of its own (unmounted at teardown, before the test's data directory
 * is removed) and returns two faults of that storage: full to the last byte, and read-only.
 */
function storageFaultsUnder(t: Test, dir: string): StorageFault[] {
  const staging = mkdtempSync(join(tmpdir(), 'pullhost-disk-full-'));
  cpSync(dir, staging, { recursive: true, preserveTimestamps: true });
  mountOrThrow(['-t', 'tmpfs', '-o', 'size=32m,mode=0755', 'tmpfs', dir]);
  t.teardown(() => {
    const r = spawnSync('umount', ['--lazy', dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`umount ${dir}: ${r.stderr}`);
  });
  cpSync(staging, dir, { recursive: true, preserveTimestamps: true });
  rmSync(staging, { recursive: true, force: true });

  const filler = join(dir, '.filler');
  const fill = () => {
    const fd = openSync(filler, 'w');
    try {
      for (const size of [1 << 20, 4096, 1]) {
        const chunk = Buffer.alloc(size, 0x5a);
        try {
          for (;;) writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        }
      }
    } finally {
      closeSync(fd);
    }
  };
  return [
    { name: 'full disk', begin: fill, end: () => rmSync(filler) },
    { name: 'read-only repository directory', begin: () => mountOrThrow(['-o', 'remount,ro', dir]), end: () => mountOrThrow(['-o', 'remount,rw', dir]) },
  ];
}

function pullRow(w: PullWorld, index: number) {
  return w.db('pull_requests').where({ base_repo_id: 1, index }).first();
}

/** Why a tmpfs cannot be mounted here, or false when it can. */
function cannotMount(): string | false {
  const probe = mkdtempSync(join(tmpdir(), 'pullhost-mount-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { encoding: 'utf8' });
    if (r.status !== 0) return `a full disk needs a small tmpfs, and mount is not permitted here: ${(r.stderr || r.error?.message || '').trim()}`;
    spawnSync('umount', [probe]);
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

t.test('a full or read-only repository disk: push, branch creation, update and merge fail cleanly with 507, nothing is half-written, all work afterwards', { skip: cannotMount() }, async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const index = await openPull(w, 'merge-when-full', { 'merge-when-full.txt': 'm\n' });
  // main moves on, so the pull request can be updated from it; wait until its check has seen that.
  const main = await w.pushBranch('main', { 'main-moved.txt': 'x\n' }, { from: 'main' });
  const checked = await waitFor(async () => (await pullRow(w, index)).checked_base === main, 20_000, 100);
  t.ok(checked && (await pullRow(w, index)).status === 'mergeable', 'the pull request was checked against the new main: mergeable');
  // A commit to push while the disk is full, made in the client's clone (on another disk).
  await w.pushBranch('push-when-full', { 'push-when-full.txt': 'p\n' });
  const clone = w.clones.alice;
  const toPush = await w.git(['commit', '-q', '--allow-empty', '-m', 'pushed while the disk is full'], clone)
    .then(() => w.git(['rev-parse', 'HEAD'], clone)).then((r) => r.stdout.trim());
  const push = () => w.git(['push', 'origin', 'HEAD:refs/heads/push-when-full'], clone);

  for (const fault of storageFaultsUnder(t, dirname(path))) {
    fault.begin();
    const refsBefore = refsOf(path);
    const refusedPush = await push();
    t.not(refusedPush.code, 0, `${fault.name}: the push fails`);
    t.match(refusedPush.stderr, /unpack failed/, `${fault.name}: git tells the pusher, in its protocol: ${refusedPush.stderr.trim()}`);
    const answers = {
      'branch creation': await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branches', as: 'alice', body: { new_branch_name: 'made-when-full', old_branch_name: 'main' } }),
      'update from main': await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/pulls/${index}/update`, as: 'alice' }),
      'merge': await merge(w, index, { do: 'merge' }),
    };
    for (const [what, res] of Object.entries(answers)) {
      t.equal(res.statusCode, 507, `${fault.name}, ${what}: 507 Insufficient Storage: ${res.body}`);
      t.same(Object.keys(res.json()).sort(), ['message', 'url'], `${fault.name}, ${what}: in Gitea's error shape`);
      t.notMatch(res.json().message, /internal error/, `${fault.name}, ${what}: the message names the storage, not an internal error`);
    }
    t.same(refsOf(path), refsBefore, `${fault.name}: no ref moved`);
    fault.end();
    assertRepositorySound(t, path);
    t.notOk((await pullRow(w, index)).has_merged, `${fault.name}: the pull request is not marked merged`);
    await assertPullsAgree(t, w);
  }

  const pushed = await push();
  t.equal(pushed.code, 0, `the same push works once the storage is back: ${pushed.stderr}`);
  t.equal(refOf(w, 'refs/heads/push-when-full'), toPush, 'the branch moved');
  const merged = await merge(w, index, { do: 'merge' });
  t.equal(merged.statusCode, 200, `the same merge request works once the storage is back: ${merged.body}`);
  t.equal((await pullRow(w, index)).merge_commit_sha, refOf(w, 'refs/heads/main'), 'its merge commit is the head of main');
  assertRepositorySound(t, path);
  await assertPullsAgree(t, w);
});
