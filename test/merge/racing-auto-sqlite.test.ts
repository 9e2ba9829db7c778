// Racing operations on one pull request on SQLite (auto-merge schedules racing forced merges, a firing auto-merge racing manual merges):
// RACING_ROUNDS rounds of each (default 10) in one world, none answered 5xx, each ending as one
// order of its requests would leave it (test/merge/racing.ts).
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { raceAutoMerges } from './racing.js';

t.test('racing operations on one pull request (auto, SQLite)', async (t) => {
  await raceAutoMerges(t, await pullWorld(t, { dbType: 'sqlite3' }));
});
