// Benchmark of a password login's cost and the failed-login throttle's share of it, on MariaDB:
// the wall time of Basic password authentication (argon2 verify included), and of the throttle's
// own steps for a correct login (check, clear) and a wrong one (check, count).
// Run: npx tsc -p . && node dist/bench/password-login.js [logins]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { loadConfig } from '../app/config.js';
import { createUser } from '../core/accounts.js';
import { authenticateRequest, type AuthenticationDeps } from '../core/authenticate.js';
import { LoginThrottle } from '../core/auth/throttle.js';
import { ensureDatabaseExists, localMariaDbHost, mysqlConnection, openDatabase, type Db } from '../db/connection.js';
import { loginThrottleStore } from '../db/login-throttle.js';
import { migrateToLatest } from '../db/migrate.js';

const LOGINS = Number(process.argv[2] ?? 40);
const THROTTLE_ROUNDS = 2000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(rounds: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await fn(i);
    out.push(performance.now() - started);
  }
  return out;
}

function makeThrottle(db: Db): LoginThrottle {
  return new LoginThrottle(loginThrottleStore(db));
}

const dir = mkdtempSync(join(tmpdir(), 'pullhost-bench-login-'));
const config = loadConfig({
  APP_DATA_PATH: dir, DB_TYPE: 'mysql', DB_HOST: process.env.DB_HOST ?? localMariaDbHost(), LOG_LEVEL: 'silent',
  DB_NAME: `pullhost_bench_${process.pid}_${randomBytes(3).toString('hex')}`,
});
await ensureDatabaseExists(config);
const db = openDatabase(config);
try {
  await migrateToLatest(db);
  await createUser(db, { username: 'bench', email: 'bench@example.com', password: 'benchmark password' });
  const throttle = makeThrottle(db);
  const deps: AuthenticationDeps = { db, secretKey: randomBytes(32), throttle, oauth2: null, passwordChecksInFlight: new Map() };
  const basic = `Basic ${Buffer.from('bench:benchmark password').toString('base64')}`;
  await authenticateRequest(deps, { authorization: basic, otp: null, ip: '127.0.0.1' }); // warm-up
  const logins = await timed(LOGINS, () => authenticateRequest(deps, { authorization: basic, otp: null, ip: '127.0.0.1' }));
  const now = Date.now();
  const success = await timed(THROTTLE_ROUNDS, async () => {
    await throttle.check('bench', '127.0.0.1', now);
    await throttle.recordSuccess('bench');
  });
  // A wrong password: each from its own address and account, so none is locked out.
  const failure = await timed(THROTTLE_ROUNDS, async (i) => {
    await throttle.check(`guess${i}`, `10.0.${i >> 8}.${i & 255}`, now);
    await throttle.recordFailure(`guess${i}`, `10.0.${i >> 8}.${i & 255}`, now);
  });
  const ms = (v: number) => v.toFixed(3);
  process.stdout.write(`password login (Basic, argon2 verify included), median of ${LOGINS}: ${ms(median(logins))} ms\n`);
  process.stdout.write(`throttle steps of a correct login (check + clear), median of ${THROTTLE_ROUNDS}: ${ms(median(success))} ms\n`);
  process.stdout.write(`throttle steps of a wrong password (check + count), median of ${THROTTLE_ROUNDS}: ${ms(median(failure))} ms\n`);
} finally {
  await db.destroy();
  const admin = knexFactory({ client: 'mysql2', connection: mysqlConnection(config), pool: { min: 0, max: 1 } });
  await admin.raw(`DROP DATABASE IF EXISTS \`${config.DB_NAME}\``);
  await admin.destroy();
  rmSync(dir, { recursive: true, force: true });
}
