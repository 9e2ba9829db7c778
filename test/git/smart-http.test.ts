// End to end: a real git client clones and pushes through a tiny node:http server built from
// advertiseRefs, readReceivePackRequest and runServiceRpc.
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { parseReceivePackCommands, readReceivePackRequest, type ReceivePackPreamble } from '../../git/pkt-line.js';
import { listBranches, resolveRef } from '../../git/refs.js';
import {
  advertiseRefs, decodeRequestBody, isForcePush, isGitService, runServiceRpc, sanitizeGitProtocol, serviceContentType,
} from '../../git/smart-http.js';
import { forkRepository } from '../../git/repository.js';
import { gitOk, runGit } from '../../git/runner.js';
import { commitTree } from '../../git/objects.js';
import { alice, bareRepo, commit, tempDir } from './helpers.js';

interface Seen {
  protocols: string[];
  encodings: string[];
  pushes: ReceivePackPreamble[];
  rawReceiveBodies: Buffer[];
}

async function serve(t: { teardown(fn: () => unknown): void }, repo: string, policy: { denyNonFastForwards?: boolean } = {}) {
  const seen: Seen = { protocols: [], encodings: [], pushes: [], rawReceiveBodies: [] };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const gitProtocol = sanitizeGitProtocol(req.headers['git-protocol']);
    if (gitProtocol) seen.protocols.push(gitProtocol);
    if (req.method === 'GET' && url.pathname === '/o/r.git/info/refs') {
      const service = url.searchParams.get('service');
      if (!isGitService(service)) return void res.writeHead(403).end();
      const body = await advertiseRefs(repo, service, { gitProtocol });
      res.writeHead(200, { 'Content-Type': serviceContentType(service, 'advertisement'), 'Cache-Control': 'no-cache' });
      return void res.end(body);
    }
    const service = url.pathname.split('/').pop();
    if (req.method !== 'POST' || !isGitService(service)) return void res.writeHead(404).end();
    seen.encodings.push(String(req.headers['content-encoding'] ?? 'identity'));
    let body = decodeRequestBody(req, req.headers['content-encoding']);
    if (service === 'git-receive-pack') {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      seen.rawReceiveBodies.push(raw);
      const parsed = await readReceivePackRequest(Readable.from([raw]));
      seen.pushes.push(parsed);
      body = parsed.body;
    }
    const child = runServiceRpc(repo, service, body, { gitProtocol, denyNonFastForwards: policy.denyNonFastForwards });
    res.writeHead(200, { 'Content-Type': serviceContentType(service, 'result'), 'Cache-Control': 'no-cache' });
    child.stdout.pipe(res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      res.writeHead(500).end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/o/r.git`, seen };
}

const user = { GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' };

async function commitInWork(work: string, file: string, content: string, message: string): Promise<string> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(work, file), content);
  await gitOk(['add', file], { cwd: work });
  await gitOk(['commit', '--quiet', '-m', message], { cwd: work, env: user });
  return (await gitOk(['rev-parse', 'HEAD'], { cwd: work })).trim();
}

t.test('advertisement framing', async (t) => {
  const repo = await bareRepo(t);
  const c = await commit(repo, null, { a: '1' }, 'one', { ref: 'refs/heads/main' });
  const v0 = await advertiseRefs(repo, 'git-upload-pack');
  t.ok(v0.toString('latin1').startsWith('001e# service=git-upload-pack\n0000'));
  t.ok(v0.toString('latin1').includes(`${c} HEAD\0`), 'refs follow, first with capabilities');
  const v2 = await advertiseRefs(repo, 'git-upload-pack', { gitProtocol: 'version=2' });
  t.ok(v2.toString('latin1').startsWith('000eversion 2\n'), 'protocol v2: no service header');
  const rp = await advertiseRefs(repo, 'git-receive-pack', { gitProtocol: 'version=2' });
  t.ok(rp.toString('latin1').startsWith('001f# service=git-receive-pack\n0000'), 'receive-pack stays v0');
  t.match(rp.toString('latin1'), /report-status/);
  await t.rejects(advertiseRefs(repo, 'git-upload-archive' as never), TypeError);
});

t.test('clone (protocol v2 and v0) and push through the HTTP pieces', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { 'README.md': 'hello\n' }, 'root', { ref: 'refs/heads/main' });
  // Enough branches that the client's fetch request passes 1 KiB and is sent gzipped.
  const rootTree = (await gitOk(['rev-parse', `${root}^{tree}`], { cwd: repo })).trim();
  const branchTips: string[] = [];
  for (let i = 0; i < 40; i++) {
    const tip = await commitTree(repo, { tree: rootTree, parents: [root], message: `branch ${i}`, author: alice, committer: alice });
    branchTips.push(tip);
    await gitOk(['update-ref', `refs/heads/branch-${String(i).padStart(2, '0')}`, tip], { cwd: repo });
  }
  const { url, seen } = await serve(t, repo);
  const dir = await tempDir(t);

  const work = join(dir, 'work');
  await gitOk(['clone', '--quiet', '--no-single-branch', url, work], { cwd: dir });
  t.ok(seen.protocols.includes('version=2'), 'the client spoke protocol v2');
  t.ok(seen.encodings.includes('gzip'), 'a gzipped request was decoded');
  t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: work })).trim(), root);

  const v0 = join(dir, 'v0');
  await gitOk(['-c', 'protocol.version=0', 'clone', '--quiet', url, v0], { cwd: dir });
  t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: v0 })).trim(), root);

  // Push a new branch and a fast-forward of main.
  await gitOk(['checkout', '--quiet', '-b', 'topic'], { cwd: work });
  const t1 = await commitInWork(work, 'topic.txt', 'topic\n', 'topic work');
  await gitOk(['push', '--quiet', 'origin', 'topic', `${t1}:refs/heads/main`], { cwd: work });
  t.equal(await resolveRef(repo, 'refs/heads/topic'), t1);
  t.equal(await resolveRef(repo, 'refs/heads/main'), t1);
  const push = seen.pushes.at(-1)!;
  t.same(push.commands.map((c) => `${c.ref} ${c.oldSha.slice(0, 7)}..${c.newSha.slice(0, 7)}`).sort(), [
    `refs/heads/main ${root.slice(0, 7)}..${t1.slice(0, 7)}`,
    `refs/heads/topic 0000000..${t1.slice(0, 7)}`,
  ]);
  t.ok(push.capabilities.some((c) => c.startsWith('report-status')), push.capabilities.join(' '));

  // Delete a branch: no pack at all.
  await gitOk(['push', '--quiet', 'origin', ':refs/heads/branch-00'], { cwd: work });
  const del = seen.pushes.at(-1)!;
  t.same(del.commands, [{ oldSha: branchTips[0], newSha: '0'.repeat(40), ref: 'refs/heads/branch-00' }]);
  t.equal(await resolveRef(repo, 'refs/heads/branch-00'), null);

  // Push options reach the parser (the server advertises push-options only if configured).
  await gitOk(['config', 'receive.advertisePushOptions', 'true'], { cwd: repo });
  const t2 = await commitInWork(work, 'more.txt', 'more\n', 'more');
  await gitOk(['push', '--quiet', '-o', 'ci.skip', '-o', 'topic=x', 'origin', 'topic'], { cwd: work });
  t.same(seen.pushes.at(-1)!.pushOptions, ['ci.skip', 'topic=x']);
  t.equal(await resolveRef(repo, 'refs/heads/topic'), t2);
  t.equal((await listBranches(repo)).length, 41);
});

t.test('force pushes: detected up front when possible, refused by policy', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: '1\n' }, 'root', { ref: 'refs/heads/main' });
  const next = await commit(repo, root, { a: '2\n' }, 'next', { ref: 'refs/heads/main' });
  t.equal(await isForcePush(repo, next, root), true, 'moving main back to a known commit');
  t.equal(await isForcePush(repo, root, next), false);
  t.equal(await isForcePush(repo, '0'.repeat(40), next), false, 'creation');
  t.equal(await isForcePush(repo, next, '0'.repeat(40)), false, 'deletion');
  t.equal(await isForcePush(repo, next, 'c'.repeat(40)), null, 'unknown until the pack arrives');

  const { url, seen } = await serve(t, repo, { denyNonFastForwards: true });
  const dir = await tempDir(t);
  const work = join(dir, 'work');
  await gitOk(['clone', '--quiet', url, work], { cwd: dir });
  await gitOk(['reset', '--quiet', '--hard', root], { cwd: work });
  const rewritten = await commitInWork(work, 'b', 'rewrite\n', 'rewrite history');
  const r = await runGit(['push', '--force', 'origin', 'HEAD:refs/heads/main'], { cwd: work });
  t.not(r.exitCode, 0, 'the force push fails');
  t.match(r.stderr, /non-fast-forward|rejected/);
  t.equal(await resolveRef(repo, 'refs/heads/main'), next, 'main kept');
  const cmd = seen.pushes.at(-1)!.commands[0]!;
  t.same([cmd.oldSha, cmd.newSha], [next, rewritten], 'the route saw what was attempted');
  t.equal(await isForcePush(repo, cmd.oldSha, cmd.newSha), true, 'the refused pack was still stored (unreachable), so the update is now known to be a force push');

  // Without the policy the same push goes through.
  const open = await serve(t, repo);
  await gitOk(['push', '--quiet', '--force', open.url, 'HEAD:refs/heads/main'], { cwd: work });
  t.equal(await resolveRef(repo, 'refs/heads/main'), rewritten);
});

t.test('a captured push body: parsed by hand, then applied by git-receive-pack --stateless-rpc', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: '1\n' }, 'root', { ref: 'refs/heads/main' });
  const dir = await tempDir(t);
  const twin = join(dir, 'twin.git');
  await forkRepository(repo, twin); // same refs as the server's repository before the push
  const { url, seen } = await serve(t, repo);
  const work = join(dir, 'work');
  await gitOk(['clone', '--quiet', url, work], { cwd: dir });
  const sha = await commitInWork(work, 'x', 'x\n', 'x');
  await gitOk(['push', '--quiet', 'origin', 'HEAD:refs/heads/feature/one', `${sha}:refs/heads/main`], { cwd: work });

  const raw = seen.rawReceiveBodies.at(-1)!;
  const parsed = parseReceivePackCommands(raw)!;
  t.same(parsed.commands.sort((a, b) => a.ref.localeCompare(b.ref)), [
    { oldSha: '0'.repeat(40), newSha: sha, ref: 'refs/heads/feature/one' },
    { oldSha: root, newSha: sha, ref: 'refs/heads/main' },
  ]);
  t.equal(raw.subarray(parsed.packOffset, parsed.packOffset + 4).toString('latin1'), 'PACK', 'the pack starts at packOffset');

  const child = runServiceRpc(twin, 'git-receive-pack', Readable.from([raw]));
  const out: Buffer[] = [];
  for await (const c of child.stdout) out.push(c as Buffer);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  t.equal(code, 0, child.stderrText());
  t.match(Buffer.concat(out).toString('latin1'), /unpack ok/);
  t.equal(await resolveRef(twin, 'refs/heads/feature/one'), sha);
  t.equal(await resolveRef(twin, 'refs/heads/main'), sha);
});
