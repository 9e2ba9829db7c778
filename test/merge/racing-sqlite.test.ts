// Racing operations on one pull request, on the embedded SQLite database: every scenario of racing.ts, RACING_ROUNDS
// times (default 10), in one world; no request answers 5xx and each round ends as one order of its
// requests would leave it.
import t from 'tap';
import { pullWorld } from '../pulls/fixtures.js';
import { raceEverything } from './racing.js';

t.test('racing operations on one pull request (sqlite)', async (t) => {
  const w = await pullWorld(t, { dbType: 'sqlite3' });
  await raceEverything(t, w);
});
