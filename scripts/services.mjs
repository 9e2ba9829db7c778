// Local services the test suite and the benchmarks need: MariaDB answering on DB_HOST (started,
// or installed from Debian's packages, when it does not).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';

const say = (line) => process.stdout.write(`[services] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

export async function waitForPort(port, seconds) {
  for (let i = 0; i < seconds * 10; i++) {
    if (await portOpen(port)) return true;
    await sleep(100);
  }
  return false;
}

function socketOpen(path) {
  return new Promise((resolve) => {
    const s = createConnection({ path });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

export async function ensureMariaDb() {
  const dbHost = (process.env.DB_HOST ?? '127.0.0.1:3306').trim();
  // A DB_HOST starting with '/' is the local server's Unix socket (Gitea's rule).
  const socket = dbHost.startsWith('/') ? dbHost : null;
  const { hostname, port } = socket ? { hostname: 'localhost', port: '3306' } : new URL(`mysql://${dbHost}`);
  const dbPort = Number(port || 3306);
  if (socket ? await socketOpen(socket) : await portOpen(dbPort, hostname)) return;
  if (hostname !== '127.0.0.1' && hostname !== 'localhost') throw new Error(`MariaDB at ${hostname}:${dbPort} does not answer`);
  if (!existsSync('/usr/sbin/mariadbd')) {
    say('MariaDB is not installed: installing it from Debian packages...');
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    const r = spawnSync('apt-get', ['install', '-y', 'mariadb-server'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error('could not install mariadb-server');
  }
  say('MariaDB is not running: starting it...');
  spawnSync('mkdir', ['-p', '/run/mysqld']);
  spawnSync('chown', ['mysql:mysql', '/run/mysqld']);
  spawnSync('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd'], { stdio: 'inherit' });
  if (!(await waitForPort(dbPort, 60))) throw new Error('MariaDB did not start within 60 s');
}

