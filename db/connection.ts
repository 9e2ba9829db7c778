// Opens the database: MariaDB/MySQL through mysql2 in production and tests, SQLite (better-sqlite3)
// as the embedded default. Everything else talks to the `Knex` this returns.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';

export interface DatabaseSettings {
  DB_TYPE: 'sqlite3' | 'mysql';
  DB_HOST: string;
  DB_NAME: string;
  DB_USER: string;
  DB_PASSWD: string;
  DB_PATH: string;
  DB_MAX_CONNECTIONS: number;
  /** Gitea's [database] SSL_MODE for MySQL: false/disable, true (verified), skip-verify (encrypted, not verified). */
  DB_SSL_MODE?: 'false' | 'disable' | 'true' | 'skip-verify';
  /** PEM of the CA that signed the server's certificate; empty: the system's CAs. */
  DB_SSL_CA_PATH?: string;
}

/** Where knex's own messages go (a pool that cannot connect warns on every attempt); absent: the console. */
export interface DatabaseLog {
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

/** mysql2's `ssl` option for DB_SSL_MODE, or undefined for a plain connection. */
export function mysqlTls(s: DatabaseSettings): { ca?: string; rejectUnauthorized: boolean } | undefined {
  const mode = s.DB_SSL_MODE ?? 'false';
  if (mode === 'false' || mode === 'disable') return undefined;
  if (mode === 'skip-verify') return { rejectUnauthorized: false };
  if (!s.DB_SSL_CA_PATH) return { rejectUnauthorized: true };
  try {
    return { ca: readFileSync(s.DB_SSL_CA_PATH, 'utf8'), rejectUnauthorized: true };
  } catch (err) {
    throw new Error(`DB_SSL_CA_PATH: cannot read ${s.DB_SSL_CA_PATH}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export type Db = Knex;

export function splitHostPort(hostPort: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(hostPort.trim());
  return { host: m?.[1] ?? '127.0.0.1', port: m?.[2] ? Number(m[2]) : 3306 };
}

/**
 * Gitea's rule: a DB_HOST that starts with '/' is the path of the server's Unix socket. On one host
 * a query costs about a third of what it costs over TCP on 127.0.0.1 (bench/HISTORY.md).
 */
export function isSocketPath(dbHost: string): boolean {
  return dbHost.trim().startsWith('/');
}

/** Where Debian's MariaDB listens on its own host. */
export const DEBIAN_MARIADB_SOCKET = '/run/mysqld/mysqld.sock';

/** For tests and benchmarks on the database's own host: its socket when it has one, else TCP. */
export function localMariaDbHost(): string {
  return existsSync(DEBIAN_MARIADB_SOCKET) ? DEBIAN_MARIADB_SOCKET : '127.0.0.1:3306';
}

export function mysqlConnection(s: DatabaseSettings, database?: string): Knex.MySql2ConnectionConfig {
  const where = isSocketPath(s.DB_HOST) ? { socketPath: s.DB_HOST.trim() } : splitHostPort(s.DB_HOST);
  const tls = mysqlTls(s);
  return {
    ...where,
    user: s.DB_USER,
    password: s.DB_PASSWD,
    database,
    charset: 'utf8mb4',
    // Keep 64-bit ids as numbers: ids stay far below 2^53.
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    connectTimeout: 5000,
    ...(tls ? { ssl: tls } : {}),
  };
}

function knexLog(log: DatabaseLog | undefined): Knex.Config['log'] {
  if (!log) return undefined;
  const text = (message: unknown) => (typeof message === 'string' ? message : JSON.stringify(message));
  return {
    warn: (m: unknown) => log.warn(text(m)),
    error: (m: unknown) => log.error(text(m)),
    debug: (m: unknown) => log.debug(text(m)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated, use ${alternative}`),
  };
}

/** Statements sent by every database this process opened, for /metrics (pullhost_db_statements_total). */
let statements = 0;
export function statementCount(): number {
  return statements;
}

/** Counts a statement sent past knex, straight through the driver (db/hot-query.ts). */
export function countStatement(): void {
  statements++;
}

export function openDatabase(s: DatabaseSettings, log?: DatabaseLog): Db {
  const db = openKnex(s, log);
  db.on('query', countStatement);
  return db;
}

function openKnex(s: DatabaseSettings, log?: DatabaseLog): Db {
  if (s.DB_TYPE === 'sqlite3') {
    mkdirSync(dirname(s.DB_PATH), { recursive: true });
    return knexFactory({
      log: knexLog(log),
      client: 'better-sqlite3',
      connection: { filename: s.DB_PATH },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('synchronous = NORMAL');
          done(null, conn);
        },
      },
    });
  }
  return knexFactory({
    log: knexLog(log),
    client: 'mysql2',
    connection: mysqlConnection(s, s.DB_NAME),
    pool: { min: 0, max: s.DB_MAX_CONNECTIONS, acquireTimeoutMillis: 5000 },
    acquireConnectionTimeout: 5000,
  });
}

/** Creates the MySQL database when it does not exist (the embedded SQLite file needs nothing). */
export async function ensureDatabaseExists(s: DatabaseSettings, log?: DatabaseLog): Promise<void> {
  if (s.DB_TYPE !== 'mysql') return;
  if (!/^[A-Za-z0-9_]+$/.test(s.DB_NAME)) throw new Error(`DB_NAME must match [A-Za-z0-9_]+, got "${s.DB_NAME}"`);
  const admin = knexFactory({ log: knexLog(log), client: 'mysql2', connection: mysqlConnection(s), pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${s.DB_NAME}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.destroy();
  }
}

export function isSqlite(db: Db): boolean {
  return db.client.config.client === 'better-sqlite3';
}

/** True for errors that mean "the database is unreachable right now" (answered with 503). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; name?: string; fatal?: unknown } | null;
  const code = e?.code ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'PROTOCOL_CONNECTION_LOST', 'ETIMEDOUT', 'ER_CON_COUNT_ERROR', 'EPIPE', 'ER_SERVER_SHUTDOWN', 'ER_CONNECTION_KILLED'].includes(code) ||
    e?.name === 'KnexTimeoutError' ||
    // mysql2 marks every error that ends a connection as fatal, some with no code at all: a query
    // on a pooled connection whose server died meanwhile fails with "Can't add new command when
    // connection is in closed state" (seen as a 500 by the MariaDB fault test).
    e?.fatal === true
  );
}

/** True when an insert failed on a unique index. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? '';
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
