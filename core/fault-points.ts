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

/** Throws whenever `name` is reached while PULLHOST_FAILING (comma-separated) names it. */
export function failingPoint(name: string): void {
  const points = process.env.PULLHOST_FAILING;
  if (points && points.split(',').includes(name)) throw new Error(`fault point ${name}: failing on purpose`);
}
