// Auto-merge at repository scale (issue #24): 50 pull requests into one protected branch, all
// scheduled while the required check is pending, then every check turned green together. Each
// lands exactly once (50 merge commits, 50 files, one merge event each) and none is left waiting.
// How fast is measured by bench/auto-merge-scale.ts, not asserted here.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { assertLandedOnce, mainMerges, mergedCount, scheduledBurst, turnGreen, waitFor } from './world.js';

const N = 50;

t.test(`${N} auto-merges turning green together land exactly once`, async (t) => {
  const w = await pullWorld(t);
  const indexes = await scheduledBurst(w, N, 'burst');
  const before = mainMerges(w);
  t.ok((await turnGreen(w, indexes)).every((s) => s === 201), 'every status recorded');
  t.ok(await waitFor(async () => (await mergedCount(w)) === N, 120_000, 200), `all ${N} merged`);
  await assertLandedOnce(t, w, 'burst', N, before);
});
