// Crash points for the fault suite: with PULLHOST_FAULTS naming a point (comma-separated) and
// PULLHOST_FAULTS_DIR set, the process kills itself the first time it reaches that point, as a
// crashing worker would. Failing points throw every time they are reached while PULLHOST_FAILING
// names them, as a dependency that stays down would. Inert unless the variables are set.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function faultPoint(name: string): void {
  const points = process.env.PULLHOST_FAULTS;
  const dir = process.env.PULLHOST_FAULTS_DIR;
  if (!points || !dir || !points.split(',').includes(name)) return;
  const marker = join(dir, `${name.replace(/[^a-z0-9-]/gi, '_')}.fired`);
  if (existsSync(marker)) return;
  writeFileSync(marker, String(process.pid));
  process.kill(process.pid, 'SIGKILL');
}

/**
 * Throws whenever `name` is reached while PULLHOST_FAILING (comma-separated) names it; named as
 * `name=CODE`, the error carries that system error code (`ENOSPC`: the disk is full).
 */
export function failingPoint(name: string): void {
  const entry = process.env.PULLHOST_FAILING?.split(',').find((p) => p === name || p.startsWith(`${name}=`));
  if (!entry) return;
  const code = entry.slice(name.length + 1);
  throw Object.assign(new Error(`fault point ${name}: failing on purpose${code ? ` (${code})` : ''}`), code ? { code } : {});
}
