// The process's one Temporal runtime. Its log lines (worker state, workflow `log.*` calls, activity
// context loggers) go through the service's pino logger, so they are JSON lines next to the API's,
// with the workflow id, run id and activity type Temporal attaches as fields. It watches no signals:
// the SDK's default stops every worker on SIGINT, SIGTERM, SIGQUIT and SIGUSR2 while the process
// goes on, so `--heapsnapshot-signal=SIGUSR2` (Node's own example) left an API whose pull requests
// never merged. app/main.ts stops the whole service on SIGINT and SIGTERM.
import { Runtime, type LogLevel, type LogMetadata, type Logger } from '@temporalio/worker';
import type { Logger as PinoLogger } from 'pino';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error',
};

function pinoBackedLogger(log: PinoLogger): Logger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => log[PINO_LEVEL[level]]({ temporal: true, ...meta }, message);
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/** Once per process, before the first worker or connection; later calls change nothing. */
export function installTemporalRuntime(log: PinoLogger): void {
  try {
    // (Core's own warnings stay on the console: forwarding them through this logger keeps a
    // process that has no worker alive for ever, as the SDK 1.24 runtime holds it open.)
    Runtime.install({ logger: pinoBackedLogger(log), shutdownSignals: [] });
  } catch {
    // A runtime already exists (an earlier worker in this process): it keeps its logger.
  }
}
