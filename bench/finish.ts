// The end of a benchmark that serves in its own process on a MariaDB database of its own: the
// server, the pool and the database closed, the database dropped, the data removed, the exit status.
import { rmSync } from 'node:fs';
import type { Config } from '../app/config.js';
import type { Db } from '../db/connection.js';
import { dropMysqlDatabase } from '../test/helper.js';
import { waitForIdleDatabase } from './load.js';

export interface InProcessBench {
  app: { close(): Promise<unknown> };
  pool: { destroy(): Promise<void> };
  db: Db;
  config: Config;
  dir: string;
}

export async function finishBench(b: InProcessBench, failures: number): Promise<never> {
  await b.app.close();
  await b.pool.destroy();
  await waitForIdleDatabase(b.db);
  await b.db.destroy();
  await dropMysqlDatabase(b.config);
  rmSync(b.dir, { recursive: true, force: true });
  process.exit(failures === 0 ? 0 : 1);
}

/** Runs a benchmark's main; a failure prints its stack and exits 1. */
export function runBench(main: () => Promise<unknown>): void {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
