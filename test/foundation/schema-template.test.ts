// The suite's databases are copies of one migrated template (test/schema-template.ts): a copy must be
// the migrated schema exactly, foreign keys included, or the tests would run against another schema.
import t from 'tap';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { loadConfig } from '../../app/config.js';
import { ensureDatabaseExists, localMariaDbHost, mysqlConnection, openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { copySchemaTemplate, prepareSchemaTemplate, schemaTemplateName } from '../schema-template.js';

const settings = (name: string) => loadConfig({ DB_TYPE: 'mysql', DB_HOST: process.env.DB_HOST ?? localMariaDbHost(), DB_NAME: name, APP_DATA_PATH: tmpdir(), SECRET_KEY: 'x' });
const suffix = randomBytes(3).toString('hex');
const migratedName = `pullhost_schema_migrated_${suffix}`;
const copiedName = `pullhost_schema_copied_${suffix}`;
// The suite's own template is being copied by other files: the broken one is a template of this file's.
const brokenName = `pullhost_schema_broken_${suffix}`;
const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(settings(migratedName)), pool: { min: 0, max: 1 } });
t.teardown(async () => {
  for (const name of [migratedName, copiedName, brokenName]) await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.destroy();
});

/** Every table's definition (without the AUTO_INCREMENT counter) and the migrations recorded. */
async function describeSchema(name: string): Promise<{ tables: Record<string, string>; migrations: string[] }> {
  const [rows] = await admin.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [name]) as [Array<{ name: string }>];
  const tables: Record<string, string> = {};
  for (const { name: table } of rows) {
    const [[create]] = await admin.raw(`SHOW CREATE TABLE \`${name}\`.\`${table}\``) as [[{ 'Create Table': string }]];
    tables[table] = create['Create Table'].replace(/ AUTO_INCREMENT=\d+/, '');
  }
  const [applied] = await admin.raw(`SELECT name FROM \`${name}\`.knex_migrations ORDER BY id`) as [Array<{ name: string }>];
  return { tables, migrations: applied.map((r) => r.name) };
}

t.test('a copy of the template is the migrated schema, foreign keys and all', async (t) => {
  const template = await prepareSchemaTemplate(settings('unused'));
  t.equal(template, schemaTemplateName(), 'named after the compiled migrations');
  t.equal(await prepareSchemaTemplate(settings('unused')), template, 'prepared once, then reused');

  await ensureDatabaseExists(settings(migratedName));
  const migrated: Knex = openDatabase(settings(migratedName));
  await migrateToLatest(migrated);
  await migrated.destroy();
  await copySchemaTemplate(settings(copiedName), template);

  const [want, got] = [await describeSchema(migratedName), await describeSchema(copiedName)];
  t.ok(Object.keys(want.tables).length > 20, 'the migrated schema has its tables');
  t.match(Object.values(want.tables).join('\n'), /FOREIGN KEY/, 'and foreign keys');
  t.same(got, want, 'the copy has the same tables, definitions and recorded migrations');

  const copied = openDatabase(settings(copiedName));
  t.same(await migrateToLatest(copied), [], 'the migrations find nothing left to do on a copy');
  await copied.destroy();
});

t.test('a half-made template is made again', async (t) => {
  const template = await prepareSchemaTemplate(settings('unused'), brokenName);
  await admin.raw(`DELETE FROM \`${template}\`.knex_migrations ORDER BY id DESC LIMIT 1`);
  t.equal(await prepareSchemaTemplate(settings('unused'), brokenName), brokenName);
  const { migrations } = await describeSchema(brokenName);
  t.same(migrations, (await describeSchema(migratedName)).migrations, 'every migration is applied again');
});
