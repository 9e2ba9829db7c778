// Command line entry: `serve` (default), `api`, `worker`, `migrate`, `admin ...`.
import { ConfigError, loadConfig, type Config } from './config.js';
import { startRuntime, StartupError, type Role } from './runtime.js';
import { ensureDatabaseExists, openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { runAdminCommand } from './admin.js';
import { limitThreadHeaps } from './heap-limits.js';
import { runningAllocator } from './allocator.js';

function printWhereToGo(config: Config, role: Role, temporalUi: string | undefined): void {
  const lines = [`pullhost is up (role: ${role}).`];
  if (role !== 'worker') {
    lines.push(`  API:         ${config.APP_URL}api/v1`);
    if (config.ENABLE_SWAGGER) lines.push(`  Swagger UI:  ${config.APP_URL}api/swagger`);
  }
  if (temporalUi) lines.push(`  Temporal UI: ${temporalUi}`);
  lines.push(`  Data:        ${config.APP_DATA_PATH} (${config.DB_TYPE})`);
  lines.push(runningAllocator() === 'jemalloc' ? '  Memory:      jemalloc' : '  Memory:      the system allocator (with libjemalloc2 installed, freed memory is given back sooner)');
  lines.push('Press Ctrl-C to stop.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function serve(config: Config, role: Role): Promise<void> {
  limitThreadHeaps();
  const runtime = await startRuntime(config, role);
  printWhereToGo(config, role, runtime.devServer?.uiUrl);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping...\n`);
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (runtime.worker) {
    runtime.worker.done.catch(async (err) => {
      process.stderr.write(`the Temporal worker stopped: ${(err as Error).message}\n`);
      await runtime.stop();
      process.exit(1);
    });
  }
}

async function migrate(config: Config): Promise<void> {
  await ensureDatabaseExists(config);
  const db = openDatabase(config);
  try {
    const applied = await migrateToLatest(db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'the database is up to date\n');
  } finally {
    await db.destroy();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
    case 'api':
    case 'worker':
      await serve(config, command);
      return -1; // keeps running
    case 'migrate':
      await migrate(config);
      return 0;
    case 'admin':
      return runAdminCommand(rest, config);
    default:
      process.stderr.write(`unknown command "${command}": use serve, api, worker, migrate or admin\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    if (err instanceof ConfigError) process.stderr.write(`configuration error: ${err.message}\n`);
    else if (err instanceof StartupError) process.stderr.write(`cannot start: ${err.message}\n`);
    else process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
