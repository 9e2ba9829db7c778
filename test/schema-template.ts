// Test databases made from one migrated schema instead of migrating each: on MariaDB a migration
// run costs about 1.6 s of DDL here, creating the same tables from their definitions about 0.2 s,
// and the suite makes a database for every world. scripts/test.mjs prepares the template once per
// run (`node dist/test/schema-template.js` prints its name); a file run on its own migrates as before.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import knexFactory, { type Knex } from 'knex';
import { loadConfig } from '../app/config.js';
import { ensureDatabaseExists, localMariaDbHost, mysqlConnection, openDatabase, type DatabaseSettings } from '../db/connection.js';
import { migrateToLatest, migrations } from '../db/migrate.js';

const DB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'db');
const PREFIX = 'pullhost_test_schema_';

/** The template's name: a digest of the compiled migrations, so changed migrations get a new one. */
export function schemaTemplateName(): string {
  const hash = createHash('sha256');
  const migrationFiles = readdirSync(join(DB_DIR, 'migrations')).filter((f) => f.endsWith('.js')).sort().map((f) => join('migrations', f));
  for (const name of ['migrate.js', ...migrationFiles]) hash.update(`${name}\n`).update(readFileSync(join(DB_DIR, name))).update('\n');
  return `${PREFIX}${hash.digest('hex').slice(0, 16)}`;
}

function admin(settings: DatabaseSettings): Knex {
  return knexFactory({ client: 'mysql2', connection: mysqlConnection(settings), pool: { min: 0, max: 1 } });
}

/** Whether the template exists with every migration applied. */
async function isComplete(a: Knex, name: string): Promise<boolean> {
  try {
    const [rows] = await a.raw(`SELECT name FROM \`${name}\`.knex_migrations`) as [Array<{ name: string }>];
    const applied = new Set(rows.map((r) => r.name));
    return migrations.every(([migration]) => applied.has(migration));
  } catch {
    return false; // no such database or table yet
  }
}

/** Makes the migrated template, once per version of the migrations. */
export async function prepareSchemaTemplate(settings: DatabaseSettings, name = schemaTemplateName()): Promise<string> {
  const a = admin({ ...settings, DB_NAME: name });
  try {
    // (Older templates stay: a run of other code on this machine may still be copying one.)
    if (await isComplete(a, name)) return name;
    // A database cannot be built aside and renamed into place: one left half-made (a run killed
    // while migrating it) is dropped and made again.
    await a.raw(`DROP DATABASE IF EXISTS \`${name}\``);
    try {
      await ensureDatabaseExists({ ...settings, DB_NAME: name });
      const db = openDatabase({ ...settings, DB_NAME: name });
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
    } catch (err) {
      await a.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      throw err;
    }
    return name;
  } finally {
    await a.destroy();
  }
}

interface TemplateCopy {
  /** CREATE TABLE statements, foreign keys included (CREATE TABLE ... LIKE would drop them). */
  tables: string[];
  /** Tables the migrations put rows in (knex's own bookkeeping). */
  withRows: string[];
}

let templateCopy: Promise<TemplateCopy> | undefined;

function readTemplate(settings: DatabaseSettings, template: string): Promise<TemplateCopy> {
  templateCopy ??= (async () => {
    const a = admin({ ...settings, DB_NAME: template });
    try {
      const [rows] = await a.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [template]) as [Array<{ name: string }>];
      const tables: string[] = [];
      const withRows: string[] = [];
      for (const { name } of rows) {
        const [[create]] = await a.raw(`SHOW CREATE TABLE \`${template}\`.\`${name}\``) as [[{ 'Create Table': string }]];
        tables.push(create['Create Table']);
        const [[{ n }]] = await a.raw(`SELECT COUNT(*) AS n FROM \`${template}\`.\`${name}\``) as [[{ n: number }]];
        if (Number(n) > 0) withRows.push(name);
      }
      return { tables, withRows };
    } finally {
      await a.destroy();
    }
  })();
  return templateCopy;
}

/** Creates `settings.DB_NAME` with the template's tables and rows (the database must not exist yet). */
export async function copySchemaTemplate(settings: DatabaseSettings, template: string): Promise<void> {
  const { tables, withRows } = await readTemplate(settings, template);
  await ensureDatabaseExists(settings);
  const db = knexFactory({
    client: 'mysql2', connection: mysqlConnection(settings, settings.DB_NAME),
    // One connection, so the foreign keys may name tables created after theirs.
    pool: { min: 1, max: 1, afterCreate: (conn: { query(sql: string, cb: (err: unknown) => void): void }, done: (err: unknown, conn: unknown) => void) => conn.query('SET FOREIGN_KEY_CHECKS = 0', (err) => done(err, conn)) },
  });
  try {
    for (const create of tables) await db.raw(create);
    for (const name of withRows) await db.raw(`INSERT INTO \`${name}\` SELECT * FROM \`${template}\`.\`${name}\``);
  } finally {
    await db.destroy();
  }
}

// `node dist/test/schema-template.js` prepares the template for a test run and prints its name.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const settings = loadConfig({
    DB_TYPE: 'mysql', DB_HOST: process.env.DB_HOST ?? localMariaDbHost(), DB_USER: process.env.DB_USER ?? 'root', DB_PASSWD: process.env.DB_PASSWD ?? '',
    DB_NAME: 'unused', APP_DATA_PATH: tmpdir(), SECRET_KEY: 'schema-template',
  });
  prepareSchemaTemplate(settings).then((name) => process.stdout.write(`${name}\n`), (err: Error) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
