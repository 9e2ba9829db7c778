// Builds the integration test binary of Gitea's Go SDK (the client behind tea, the Terraform
// provider and many bots) for test/compat/go-sdk.test.ts. Only Node's own modules: bootstrap.mjs
// calls this before any dependency is installed.
//
// The pinned module comes through the Go module proxy into Go's module cache; a scratch module in
// .tools/go-sdk (git-ignored) requires it, and `go test -c` compiles the SDK's own tests package
// into one binary. Rebuilt only when the binary is missing or the pinned version changed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const GO_SDK_MODULE = 'code.gitea.io/sdk/gitea';
export const GO_SDK_VERSION = 'v0.25.1';
const TESTS_PACKAGE = `${GO_SDK_MODULE}/tests`;

/** Where the build lives, relative to the project root. */
export function goSdkPaths(root) {
  const dir = join(root, '.tools', 'go-sdk');
  return { dir, binary: join(dir, 'gitea-sdk.test'), stamp: join(dir, 'version'), log: join(dir, 'build.log') };
}

function isCurrent(paths) {
  return existsSync(paths.binary) && existsSync(paths.stamp) && readFileSync(paths.stamp, 'utf8').trim() === `${GO_SDK_MODULE}@${GO_SDK_VERSION}`;
}

/**
 * Builds the binary unless the current one is of the pinned version. `go` is the Go command (null
 * when Go is missing: the SDK test then fails and says why). Go's output goes to build.log.
 */
export function buildGoSdkTests({ root, go, say }) {
  const paths = goSdkPaths(root);
  if (isCurrent(paths)) return paths.binary;
  if (!go) {
    say(`Go is not installed: cannot build the Go SDK's test binary (${GO_SDK_MODULE}@${GO_SDK_VERSION}); test/compat/go-sdk will fail.`);
    return null;
  }
  rmSync(paths.dir, { recursive: true, force: true });
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(join(paths.dir, 'go.mod'), `module pullhost.invalid/go-sdk-tests\n\ngo 1.26\n\nrequire ${GO_SDK_MODULE} ${GO_SDK_VERSION}\n`);
  say(`building the Go SDK's integration tests (${GO_SDK_MODULE}@${GO_SDK_VERSION}) into .tools/go-sdk: first run only, about half a minute (log: ${paths.log}).`);
  const log = openSync(paths.log, 'w');
  try {
    const result = spawnSync(go, ['test', '-c', '-o', paths.binary, TESTS_PACKAGE], {
      cwd: paths.dir,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        // Modules come from the module proxy only (no direct fetch from a code host).
        GOPROXY: process.env.GOPROXY || 'https://proxy.golang.org',
        GOFLAGS: '-mod=mod -buildvcs=false',
      },
    });
    if (result.error) throw new Error(`${go} could not run: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`building the Go SDK's tests failed with exit status ${result.status}; see ${paths.log}`);
  } finally {
    closeSync(log);
  }
  writeFileSync(paths.stamp, `${GO_SDK_MODULE}@${GO_SDK_VERSION}\n`);
  say('the Go SDK test binary is ready.');
  return paths.binary;
}
