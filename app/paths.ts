// Where the project's own files are, whether running from dist/ or from the source tree.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** The Temporal CLI: TEMPORAL_CLI_PATH (the setting, else the environment's), else the one `npm start` builds into .tools/bin. */
export function temporalCliPath(configured: string): string {
  if (configured) return configured;
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  const built = join(projectRoot, '.tools', 'bin', 'temporal');
  return existsSync(built) ? built : 'temporal';
}
