// Gitea's Go SDK, unchanged, against a fresh instance of this service the way the SDK's own CI
// runs it against Gitea (see go-sdk-suite.ts): its compiled integration tests (built by
// `node scripts/bootstrap.mjs test` into .tools/go-sdk), every one in `go test`'s order, each in
// its own process. The in-domain tests named in EXPECTED_TO_PASS must pass; the other in-domain
// tests are reported as to-do until their routes land; the rest run for the state they leave
// (users later tests count) and are only reported.
import t from 'tap';
import { EXPECTED_TO_PASS, SDK_TESTS, listSdkTests, runSdkSuite, sdkTestBinary } from './go-sdk-suite.js';
import { startSdkInstance } from './go-sdk-instance.js';

t.test('the Go SDK integration suite against a fresh instance', async (t) => {
  const sdk = sdkTestBinary();
  if (!sdk) {
    t.fail('the Go SDK test binary is missing: `node scripts/bootstrap.mjs test` builds it (needs Go and the module proxy)');
    return;
  }
  t.comment(`SDK ${sdk.version}`);
  const { server } = await startSdkInstance(t);

  // The catalogue must be the binary's: a new SDK version with tests nobody classified fails here.
  const names = await listSdkTests(sdk.binary, server);
  t.same(names, SDK_TESTS.map((s) => s.name), 'the catalogue lists every test of the binary, in its order');

  const domain = new Map(SDK_TESTS.map((s) => [s.name, s]));
  for (const name of EXPECTED_TO_PASS) t.equal(domain.get(name)?.domain, 'in', `${name} is an in-domain test of the catalogue`);
  const expected = new Set(EXPECTED_TO_PASS);

  const started = Date.now();
  const results = await runSdkSuite(sdk.binary, server, SDK_TESTS.map((s) => s.name));
  for (const r of results) {
    const test = domain.get(r.name)!;
    if (test.domain !== 'in') {
      t.comment(`${test.domain === 'out' ? 'outside the domain' : 'not required'} (${test.about}): ${r.name} ${r.passed ? 'passes' : 'fails'}`);
    } else if (expected.has(r.name)) {
      t.ok(r.passed, `${r.name}: ${test.about}`, { diagnostic: !r.passed, output: r.output });
    } else {
      t.ok(r.passed, `${r.name}: ${test.about}`, { todo: r.passed ? 'passes now: add it to EXPECTED_TO_PASS' : 'not yet passing', output: r.output });
    }
  }
  const inDomain = results.filter((r) => domain.get(r.name)!.domain === 'in');
  t.comment(`in the domain: ${inDomain.filter((r) => r.passed).length} of ${inDomain.length} pass (${EXPECTED_TO_PASS.length} required); ${results.length} SDK tests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
