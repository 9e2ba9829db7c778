// A MariaDB server of one test's own (its own data directory and port), so the test can kill and
// restart it while the other test files keep using the machine's MariaDB on 3306.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helper.js';
import { waitFor } from '../merge/world.js';

export interface PrivateMariaDb {
  /** host:port for DB_HOST. */
  host: string;
  /** Kills the server with SIGKILL, as a crash would, and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts the server again on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** A fresh server (root without a password on 127.0.0.1), running, removed at teardown; `serverArgs` are added to mariadbd's. */
export async function startPrivateMariaDb(t: { teardown(fn: () => unknown): void }, serverArgs: string[] = []): Promise<PrivateMariaDb> {
  const dir = mkdtempSync(join(tmpdir(), 'pullhost-mariadb-'));
  const datadir = join(dir, 'data');
  const port = await freePort();
  const install = spawnSync('mariadb-install-db', ['--no-defaults', '--user=root', `--datadir=${datadir}`, '--skip-test-db', '--auth-root-authentication-method=normal'], { encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr}`);
  let server: ChildProcess | null = null;
  let log = '';

  async function stopWith(signal: NodeJS.Signals): Promise<void> {
    const s = server;
    if (!s || s.exitCode !== null || s.signalCode !== null) return;
    const gone = new Promise((resolve) => s.once('exit', resolve));
    s.kill(signal);
    await gone;
  }

  const db: PrivateMariaDb = {
    host: `127.0.0.1:${port}`,
    async start() {
      server = spawn('/usr/sbin/mariadbd', [
        '--no-defaults', '--user=root', `--datadir=${datadir}`, `--socket=${join(dir, 'sock')}`, `--pid-file=${join(dir, 'pid')}`,
        `--port=${port}`, '--bind-address=127.0.0.1', '--skip-log-bin', '--innodb-buffer-pool-size=32M', '--innodb-log-file-size=16M',
        ...serverArgs,
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      server.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-8000)));
      if (!(await waitFor(() => accepts(port), 60_000, 100))) throw new Error(`the private MariaDB did not start: ${log}`);
    },
    kill: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
  };
  t.teardown(async () => {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await db.start();
  return db;
}
