// The process's log destination: pino's JSON lines, or the same lines made readable (pino-pretty,
// in this thread, synchronously) when stdout is a terminal. Piped or redirected output, tests and
// log collectors keep JSON.
import pino, { type DestinationStream, type Logger } from 'pino';
import PinoPretty from 'pino-pretty';

let stream: DestinationStream | undefined;

/** undefined: pino's own stdout destination (JSON). */
export function logStream(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  stream ??= PinoPretty({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true, destination: 1 });
  return stream;
}

export function createLogger(level: string): Logger {
  const destination = logStream();
  return destination ? pino({ level }, destination) : pino({ level });
}
