// A client hangs up in the middle of a push (half of a real receive-pack body sent, then the socket
// destroyed): no ref moves, nothing is left half-written, the server still answers, and the same push
// made properly afterwards goes through.
import t from 'tap';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoDiskPath } from '../../core/repositories.js';
import { encodePktLine, FLUSH_PKT } from '../../git/index.js';
import { pullWorld } from '../pulls/fixtures.js';
import { openPull, refOf, waitFor } from '../merge/world.js';
import { basic } from '../repos/fixtures.js';
import { assertPullsAgree, assertRepositorySound, filesMatching, refsOf } from './consistency.js';

t.test('a push cut off mid-body changes nothing; the next push works', async (t) => {
  const w = await pullWorld(t);
  const path = repoDiskPath(w.config, 'alice', 'widget');
  const index = await openPull(w, 'big-change', { 'small.txt': 's\n' });
  const clone = w.clones.alice;
  const run = async (args: string[]) => {
    const r = await w.git(args, clone);
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };

  // A commit too big to arrive in one read (incompressible), packed as git push would send it.
  const oldSha = await run(['rev-parse', 'HEAD']);
  writeFileSync(join(clone, 'big.bin'), randomBytes(4 * 1024 * 1024));
  await run(['add', 'big.bin']);
  await run(['commit', '-q', '-m', 'big file']);
  const newSha = await run(['rev-parse', 'HEAD']);
  const pack = await packObjects(clone, [newSha, `^${oldSha}`]);
  const body = Buffer.concat([
    encodePktLine(`${oldSha} ${newSha} refs/heads/big-change\0 report-status side-band-64k agent=git/fault-test\n`), FLUSH_PKT, pack,
  ]);

  const refsBefore = refsOf(path);
  const objects = join(path, 'objects');
  const quarantined = () => filesMatching(objects, /^tmp_objdir-incoming-/).length > 0;
  const answered = new Promise<string>((resolve) => {
    const req = request(new URL('/alice/widget.git/git-receive-pack', w.baseUrl), {
      method: 'POST',
      headers: { ...basic('alice'), 'content-type': 'application/x-git-receive-pack-request', 'content-length': String(body.length) },
    });
    req.once('response', () => resolve('the server answered before the body was complete'));
    req.once('error', (err) => resolve(`client side: ${err.message}`));
    req.write(body.subarray(0, body.length >> 1));
    // Hang up once git is receiving the pack (its quarantine directory exists).
    void waitFor(async () => quarantined(), 20_000, 20).then((seen) => {
      t.ok(seen, 'git was receiving the pack when the client hung up');
      req.destroy();
    });
  });
  t.match(await answered, /^client side/, 'the client hung up before any answer');

  t.ok(await waitFor(async () => !quarantined(), 20_000, 50), 'the cut-off pack\'s quarantine is cleaned up');
  t.same(refsOf(path), refsBefore, 'no ref changed');
  assertRepositorySound(t, path);
  const alive = await fetch(new URL('/api/v1/repos/alice/widget', w.baseUrl), { headers: basic('alice') });
  t.equal(alive.status, 200, 'the server still answers');
  t.equal((await w.db('pull_requests').where({ index }).first()).head_commit_id, oldSha, 'the pull request head is unchanged');
  await assertPullsAgree(t, w);

  await run(['push', '-q', 'origin', 'HEAD:refs/heads/big-change']);
  t.equal(refOf(w, 'refs/heads/big-change'), newSha, 'a normal push afterwards succeeds');
  t.equal(refOf(w, `refs/pull/${index}/head`), newSha, 'and moves the pull request head');
  t.equal((await w.db('pull_requests').where({ index }).first()).head_commit_id, newSha, 'the row agrees');
  assertRepositorySound(t, path);
  await assertPullsAgree(t, w);
});

/** `git pack-objects --revs --stdout` of the given revisions, as bytes. */
async function packObjects(cwd: string, revs: string[]): Promise<Buffer> {
  const child = spawn('git', ['pack-objects', '--revs', '--stdout', '-q'], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(`${revs.join('\n')}\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`git pack-objects exited with ${code}`);
  return Buffer.concat(chunks);
}
