// git runs with an empty private HOME and XDG_CONFIG_HOME (git/runner.ts), so that no user's
// configuration or attributes reach it. Made in the temporary directory, it is removed at exit,
// which a process killed by a crash never reaches: each crash left one behind. A service process
// uses one under its data directory instead, made private once and reused by every process after.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Points git's HOME at APP_DATA_PATH/git-home (mode 0700) for this process, unless PULLHOST_GIT_HOME
 * already names one, or the directory is not this user's alone (git then keeps its temporary one).
 * Returns the directory git will use, or null for the temporary one. Call before git first runs.
 */
export function useDataGitHome(dataPath: string): string | null {
  if (process.env.PULLHOST_GIT_HOME) return process.env.PULLHOST_GIT_HOME;
  const dir = join(dataPath, 'git-home');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const mine = process.getuid === undefined || st.uid === process.getuid();
    if (!st.isDirectory() || !mine || (st.mode & 0o077) !== 0) return null;
  } catch {
    return null;
  }
  process.env.PULLHOST_GIT_HOME = dir;
  return dir;
}
