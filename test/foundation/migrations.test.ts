import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../app/config.js';
import { ensureDatabaseExists, openDatabase } from '../../db/connection.js';
import { migrateToLatest, migrations, rollbackAll } from '../../db/migrate.js';
import { dropMysqlDatabase } from '../helper.js';

const EXPECTED_TABLES = ['users', 'access_tokens', 'teams', 'repositories', 'issues', 'pull_requests', 'pull_auto_merges', 'commit_statuses'];

for (const dbType of ['mysql', 'sqlite3'] as const) {
  t.test(`every migration runs up and down on ${dbType}`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'pullhost-migrate-'));
    const cfg = loadConfig({ DB_TYPE: dbType, APP_DATA_PATH: dir, DB_NAME: `pullhost_test_migrate_${process.pid}` });
    await ensureDatabaseExists(cfg);
    const db = openDatabase(cfg);
    t.teardown(async () => {
      await db.destroy();
      if (dbType === 'mysql') await dropMysqlDatabase(cfg);
      rmSync(dir, { recursive: true, force: true });
    });
    const applied = await migrateToLatest(db);
    t.same(applied, migrations.map(([name]) => name), 'all migrations applied in order');
    for (const table of EXPECTED_TABLES) t.ok(await db.schema.hasTable(table), `${table} exists`);
    t.same(await migrateToLatest(db), [], 'a second run applies nothing');
    await rollbackAll(db);
    for (const table of EXPECTED_TABLES) t.notOk(await db.schema.hasTable(table), `${table} dropped`);
    t.same(await migrateToLatest(db), migrations.map(([name]) => name), 'and up again');
  });
}
