// Racing operations on one pull request on MariaDB (50 identical merges, merges racing closes, updates racing merges):
// RACING_ROUNDS rounds of each (default 10) in one world, none answered 5xx, each ending as one
// order of its requests would leave it (test/merge/racing.ts).
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { raceMerges } from './racing.js';

t.test('racing operations on one pull request (merges, MariaDB)', async (t) => {
  await raceMerges(t, await pullWorld(t, { dbType: 'mysql' }));
});
