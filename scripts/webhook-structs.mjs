// Builds the webhook payload checker (scripts/webhook-structs/main.go) against Gitea's own payload
// structs, code.gitea.io/gitea/modules/structs at the pinned version, fetched through the Go module
// proxy. Built once into .tools/webhook-structs (git-ignored); rebuilt only when the pinned
// version or the checker's source changed. Only Node's own modules.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GITEA_MODULE = 'code.gitea.io/gitea';
export const GITEA_VERSION = 'v1.26.4';

export function webhookStructsPaths(root) {
  const dir = join(root, '.tools', 'webhook-structs');
  return { dir, binary: join(dir, 'check'), stamp: join(dir, 'version'), source: join(root, 'scripts', 'webhook-structs', 'main.go') };
}

function stampOf(paths) {
  return `${GITEA_MODULE}@${GITEA_VERSION} ${createHash('sha256').update(readFileSync(paths.source)).digest('hex').slice(0, 16)}`;
}

/**
 * The checker's path, built if needed; throws with the reason when it cannot be built. Test files
 * running at once may each find it missing: each builds in a directory of its own and moves the
 * binary, then the stamp, into place (one deleting the shared directory under another's build
 * failed that build).
 */
export function buildWebhookStructsChecker({ root, go = 'go', say = () => {} }) {
  const paths = webhookStructsPaths(root);
  const stamp = stampOf(paths);
  if (existsSync(paths.binary) && existsSync(paths.stamp) && readFileSync(paths.stamp, 'utf8').trim() === stamp) return paths.binary;
  const work = `${paths.dir}.build-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'go.mod'), `module pullhost.invalid/webhook-structs\n\ngo 1.26\n\nrequire ${GITEA_MODULE} ${GITEA_VERSION}\n`);
  copyFileSync(paths.source, join(work, 'main.go'));
  const logPath = join(work, 'build.log');
  say(`building the webhook payload checker against ${GITEA_MODULE}@${GITEA_VERSION}'s structs into .tools/webhook-structs (log: ${logPath}).`);
  const log = openSync(logPath, 'w');
  try {
    const result = spawnSync(go, ['build', '-o', join(work, 'check'), '.'], {
      cwd: work,
      stdio: ['ignore', log, log],
      env: { ...process.env, GOPROXY: process.env.GOPROXY || 'https://proxy.golang.org', GOFLAGS: '-mod=mod -buildvcs=false' },
    });
    if (result.error) throw new Error(`${go} could not run: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`building the webhook payload checker failed with exit status ${result.status}; see ${logPath}`);
  } finally {
    closeSync(log);
  }
  mkdirSync(paths.dir, { recursive: true });
  renameSync(join(work, 'check'), paths.binary);
  writeFileSync(join(work, 'version'), `${stamp}\n`);
  renameSync(join(work, 'version'), paths.stamp);
  rmSync(work, { recursive: true, force: true });
  return paths.binary;
}
