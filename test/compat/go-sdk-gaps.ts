// The Go SDK's suite as a measuring tool (not a test file): runs every test of the compiled binary
// through the recording proxy against a server and saves results and traffic; then lines up a run
// against this service with one against Gitea to name, for each in-domain test that fails here,
// the first request answered differently.
//
//   node dist/test/compat/go-sdk-gaps.js record --ours --out ours.json        (a fresh instance of ours)
//   node dist/test/compat/go-sdk-gaps.js record --url http://127.0.0.1:3110 --out gitea.json
//   node dist/test/compat/go-sdk-gaps.js compare ours.json gitea.json > gaps.md
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SDK_ADMIN, SDK_TESTS, runSdkSuite, sdkTestBinary, type SdkResult, type SdkServer } from './go-sdk-suite.js';
import { startRecorder, type Exchange } from './go-sdk-recorder.js';
import { startSdkInstance } from './go-sdk-instance.js';

interface Recording {
  target: string;
  sdk: string;
  results: SdkResult[];
  exchanges: Exchange[];
}

async function record(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ours: { type: 'boolean', default: false }, url: { type: 'string' }, out: { type: 'string' },
      user: { type: 'string', default: SDK_ADMIN.username }, password: { type: 'string', default: SDK_ADMIN.password },
      only: { type: 'string' },
    },
  });
  const sdk = sdkTestBinary();
  if (!sdk) throw new Error('no SDK test binary: run `node scripts/bootstrap.mjs test` first');
  if (!values.out || (!values.ours && !values.url)) throw new Error('record needs --out and one of --ours, --url');
  const teardowns: Array<() => unknown> = [];
  try {
    let server: SdkServer;
    if (values.ours) server = (await startSdkInstance({ teardown: (fn) => teardowns.unshift(fn) })).server;
    else server = { url: values.url!.replace(/\/$/, ''), username: values.user!, password: values.password! };
    const recorder = await startRecorder(server.url);
    teardowns.unshift(() => recorder.close());
    const names = values.only ? values.only.split(',') : SDK_TESTS.map((s) => s.name);
    const results = await runSdkSuite(sdk.binary, { ...server, url: recorder.url }, names, {
      onStart: (name) => recorder.setTest(name),
      onResult: (r) => { process.stderr.write(`${r.passed ? 'PASS' : 'FAIL'} ${r.name} (${r.ms} ms)\n`); },
    });
    const recording: Recording = { target: server.url, sdk: sdk.version, results, exchanges: recorder.exchanges };
    writeFileSync(values.out, JSON.stringify(recording, null, 1));
    const inDomain = new Set(SDK_TESTS.filter((s) => s.domain === 'in').map((s) => s.name));
    const passedIn = results.filter((r) => r.passed && inDomain.has(r.name)).length;
    process.stderr.write(`in the domain: ${passedIn} of ${results.filter((r) => inDomain.has(r.name)).length} pass; all: ${results.filter((r) => r.passed).length} of ${results.length}\n`);
  } finally {
    for (const fn of teardowns) await fn();
  }
}

/** Paths with their ids and hashes made comparable across two servers. */
function shape(e: Exchange): string {
  const path = e.path.replace(/\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b/g, '{sha}').replace(/\/\d+(?=\/|$|\?|\.)/g, '/{n}');
  return `${e.method} ${path}`;
}

/** testify's failure lines: where and what. */
function failureSummary(output: string): string {
  const lines = output.split('\n');
  const picked = lines.filter((l) => /^\s+(Error Trace|Error|Messages):|panic:|^\s+\S+_test\.go:\d+/.test(l)).slice(0, 12);
  return picked.map((l) => l.trim()).join('\n');
}

function fence(s: string): string {
  return s ? `\`${s.replace(/`/g, "'").replace(/\n/g, ' ')}\`` : '(empty)';
}

function compare(oursFile: string, giteaFile: string): string {
  const ours = JSON.parse(readFileSync(oursFile, 'utf8')) as Recording;
  const gitea = JSON.parse(readFileSync(giteaFile, 'utf8')) as Recording;
  const result = (rec: Recording, name: string) => rec.results.find((r) => r.name === name);
  const out: string[] = [];
  const inDomain = SDK_TESTS.filter((s) => s.domain === 'in');
  const count = (rec: Recording) => inDomain.filter((s) => result(rec, s.name)?.passed).length;
  out.push(`In-domain tests passing: ours ${count(ours)} of ${inDomain.length}, Gitea ${count(gitea)} of ${inDomain.length} (SDK ${ours.sdk}).`, '');
  for (const test of inDomain) {
    const o = result(ours, test.name);
    const g = result(gitea, test.name);
    if (!o || o.passed) continue;
    out.push(`### ${test.name} — ${test.about}`, '');
    if (g && !g.passed) out.push(`Gitea fails it too:`, '```', failureSummary(g.output), '```', '');
    const oe = ours.exchanges.filter((e) => e.test === test.name);
    const ge = gitea.exchanges.filter((e) => e.test === test.name);
    let i = 0;
    while (i < oe.length && i < ge.length && shape(oe[i]) === shape(ge[i]) && oe[i].status === ge[i].status) i++;
    if (i < oe.length || i < ge.length) {
      const a = oe[i];
      const b = ge[i];
      out.push(`First difference (request ${i + 1} of the test):`, '');
      if (a) out.push(`- ours: \`${a.method} ${a.path}\` body ${fence(a.requestBody)} → **${a.status}** ${fence(a.responseBody)}`);
      else out.push('- ours: no further request (the test stopped)');
      if (b) out.push(`- Gitea: \`${b.method} ${b.path}\` body ${fence(b.requestBody)} → **${b.status}** ${fence(b.responseBody)}`);
      else out.push('- Gitea: no further request');
    } else {
      out.push('Every request was answered with the same status as Gitea: the difference is in a body.');
    }
    out.push('', 'The test says:', '```', failureSummary(o.output), '```', '');
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'record') await record(rest);
  else if (command === 'compare' && rest.length === 2) process.stdout.write(compare(rest[0], rest[1]));
  else throw new Error('usage: go-sdk-gaps.js record (--ours | --url URL) --out FILE [--only A,B] | compare OURS.json GITEA.json');
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
