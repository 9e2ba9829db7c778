// One-row reads on the request hot path, run straight through the driver of a pooled connection.
// knex's query runner costs more CPU per call than the query itself (measured by
// bench/token-auth.ts: about 90 µs of ~130 µs for the token lookup), so the one query every
// authenticated request makes skips it. The connection still comes from, and goes back to, knex's
// pool, so limits, health checks and shutdown behave as for every other query.
import type { Knex } from 'knex';
import { isSqlite } from './connection.js';

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

interface SqliteStatement {
  get(...params: unknown[]): unknown;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
interface MysqlConnection {
  query(sql: string, values: unknown[], callback: (err: Error | null, rows: unknown) => void): void;
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

/** The first row of `sql` (a constant string with `?` placeholders), or undefined. */
export async function selectFirstRow(db: Knex, sql: string, params: readonly unknown[]): Promise<Record<string, unknown> | undefined> {
  const client = db.client as unknown as PoolClient;
  const connection = await client.acquireConnection();
  try {
    if (isSqlite(db)) {
      return sqliteStatement(connection as SqliteConnection, sql).get(...params) as Record<string, unknown> | undefined;
    }
    const rows = await new Promise<unknown>((resolve, reject) => {
      (connection as MysqlConnection).query(sql, [...params], (err, result) => (err ? reject(err) : resolve(result)));
    });
    return Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
  } finally {
    await client.releaseConnection(connection);
  }
}
