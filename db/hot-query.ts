// Reads on the request hot path, run straight through the driver of a pooled connection.
// knex's query runner costs more CPU per call than the query itself (measured by
// bench/token-auth.ts: about 90 µs of ~130 µs for the token lookup), so the queries most requests
// make skip it: the token lookup, a repository route's first row, accounts by id, mentions. The
// connection still comes from, and goes back to, knex's pool, so limits, health checks and shutdown
// behave as for every other query. Callers inside a transaction use knex (these take a connection).
import type { Knex } from 'knex';
import { countStatement, isSqlite } from './connection.js';

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

interface SqliteStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(on: boolean): SqliteStatement;
  columns(): Array<{ name: string; table: string | null }>;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
interface MysqlConnection {
  query(sql: string | { sql: string; nestTables: boolean }, values: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
}

// better-sqlite3 statements are compiled once per connection and reused (knex prepares every time).
const statements = new WeakMap<object, Map<string, SqliteStatement>>();

function sqliteStatement(connection: SqliteConnection, sql: string): SqliteStatement {
  let cache = statements.get(connection);
  if (!cache) {
    cache = new Map();
    statements.set(connection, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** Runs `read` on a connection of knex's pool, given back afterwards. */
async function withConnection<T>(db: Knex, read: (connection: unknown) => Promise<T> | T): Promise<T> {
  const client = db.client as unknown as PoolClient;
  const connection = await client.acquireConnection();
  countStatement();
  try {
    return await read(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

function mysqlQuery(connection: unknown, sql: string | { sql: string; nestTables: boolean }, params: readonly unknown[]): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    (connection as MysqlConnection).query(sql, [...params], (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** The first row of `sql` (a constant string with `?` placeholders), or undefined. */
export function selectFirstRow(db: Knex, sql: string, params: readonly unknown[]): Promise<Record<string, unknown> | undefined> {
  return withConnection(db, async (connection) => {
    if (isSqlite(db)) return sqliteStatement(connection as SqliteConnection, sql).get(...params) as Record<string, unknown> | undefined;
    const rows = await mysqlQuery(connection, sql, params);
    return Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
  });
}

/** `?, ?, ?` for an IN list of `count` values. */
export function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** Every row of `sql` (a constant string with `?` placeholders; one per count of an IN list). */
export function selectRows(db: Knex, sql: string, params: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  return withConnection(db, async (connection) => {
    if (isSqlite(db)) return sqliteStatement(connection as SqliteConnection, sql).all(...params) as Array<Record<string, unknown>>;
    const rows = await mysqlQuery(connection, sql, params);
    return Array.isArray(rows) ? rows as Array<Record<string, unknown>> : [];
  });
}

/** A joined row split by the table (or alias) each column came from. */
export type RowsByTable = Record<string, Record<string, unknown>>;

// better-sqlite3 reports the table a column came from, never its alias: a statement's columns are
// grouped once, in the order of the `alias.*` groups of its SELECT list.
const sqliteGroups = new WeakMap<SqliteStatement, Array<{ group: string; name: string }>>();

/**
 * The group each result column of `statement` belongs to: a new one starts where the column's table
 * changes or a name repeats (`users.*, posters.*`), and takes the next `alias.*` name of `sql`;
 * computed columns (no table) go under ''.
 */
function sqliteColumnGroups(statement: SqliteStatement, sql: string): Array<{ group: string; name: string }> {
  let groups = sqliteGroups.get(statement);
  if (groups) return groups;
  const aliases = [...sql.matchAll(/(\w+)\.\*/g)].map((m) => m[1]!);
  let index = -1;
  let table: string | null = null;
  let names = new Set<string>();
  groups = statement.columns().map((c) => {
    if (c.table === null) return { group: '', name: c.name };
    if (c.table !== table || names.has(c.name)) {
      index++;
      table = c.table;
      names = new Set();
    }
    names.add(c.name);
    return { group: aliases[index] ?? c.table, name: c.name };
  });
  sqliteGroups.set(statement, groups);
  return groups;
}

/**
 * The first row of a join, split per table: `SELECT a.*, b.*, c.* ...` with computed columns last,
 * so that columns several tables have (id, name, ...) stay apart; a table joined twice is told
 * apart by its alias (`users.*, posters.*`). mysql2 nests them itself. Not for use inside a
 * transaction (it takes its own connection).
 */
export function selectFirstRowByTable(db: Knex, sql: string, params: readonly unknown[]): Promise<RowsByTable | undefined> {
  return withConnection(db, async (connection) => {
    if (isSqlite(db)) {
      const statement = sqliteStatement(connection as SqliteConnection, `/* by table */ ${sql}`).raw(true);
      const values = statement.get(...params) as unknown[] | undefined;
      if (!values) return undefined;
      const out: RowsByTable = {};
      sqliteColumnGroups(statement, sql).forEach(({ group, name }, i) => {
        (out[group] ??= {})[name] = values[i];
      });
      return out;
    }
    const rows = await mysqlQuery(connection, { sql, nestTables: true }, params);
    return Array.isArray(rows) ? (rows[0] as RowsByTable | undefined) : undefined;
  });
}
