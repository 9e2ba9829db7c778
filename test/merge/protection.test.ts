// Branch protection on merges: required status checks (glob contexts), and force_merge.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { merge, openPull, refOf } from './world.js';

t.test('branch protection: required status checks, approvals, and force_merge', async (t) => {
  const w = await pullWorld(t);
  const rule = await w.api({ method: 'POST', url: '/api/v1/repos/alice/widget/branch_protections', as: 'alice', body: {
    rule_name: 'main', enable_push: true, enable_status_check: true, status_check_contexts: ['ci/*'], required_approvals: 0,
  } });
  t.equal(rule.statusCode, 201, rule.body);
  const p = await openPull(w, 'feature-checked', { 'checked.txt': 'c\n' });
  const head = refOf(w, `refs/pull/${p}/head`)!;
  const blocked = await merge(w, p, {}, 'dave');
  t.equal(blocked.statusCode, 405, 'required checks not reported: not ready');
  await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'failure', context: 'ci/build' } });
  t.equal((await merge(w, p, {}, 'dave')).statusCode, 405, 'a failing check blocks');
  const forced = await merge(w, p, { force_merge: true }, 'dave');
  t.equal(forced.statusCode, 405, 'force_merge is for repository admins only');
  await w.api({ method: 'POST', url: `/api/v1/repos/alice/widget/statuses/${head}`, as: 'alice', body: { state: 'success', context: 'ci/build' } });
  const ok = await merge(w, p, {}, 'dave');
  t.equal(ok.statusCode, 200, ok.body);

  const q = await openPull(w, 'feature-forced', { 'forced.txt': 'f\n' });
  const adminForced = await merge(w, q, { force_merge: true }, 'alice');
  t.equal(adminForced.statusCode, 200, 'the owner may force a merge past the rule');
});
