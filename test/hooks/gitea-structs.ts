// Feeds received payloads to Gitea's own payload structs (scripts/webhook-structs: a Go program on
// code.gitea.io/gitea/modules/structs, built once into .tools through the Go module proxy), which
// report unknown fields at any depth, wrongly typed values and missing required fields.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../app/paths.js';
import { payloadOf, type Received } from './receiver.js';

export interface StructsCheck {
  status: number | null;
  output: string;
}

/**
 * Events Gitea has no struct for, left out of the check on purpose: merge_group is GitHub's merge
 * queue event (Gitea has no merge queue), checked field by field by test/hooks/merge-queue.test.ts.
 */
const GITHUB_ONLY = new Set(['merge_group']);

/**
 * Fields of the merge queue, which Gitea lacks, so not checked: GitHub's `reason` of `dequeued`, and
 * the pull request's `merge_queue` (where it is queued, shown while it is).
 */
function giteaFields(p: Record<string, unknown>): Record<string, unknown> {
  const { reason, ...rest } = p;
  const pull = rest.pull_request as Record<string, unknown> | undefined;
  if (pull && 'merge_queue' in pull) {
    const { merge_queue: _queued, ...others } = pull;
    rest.pull_request = others;
  }
  return p.action === 'dequeued' ? rest : { ...rest, ...(reason !== undefined ? { reason } : {}) };
}

export async function checkWithGiteaStructs(received: Array<Pick<Received, 'headers' | 'body'>>): Promise<StructsCheck> {
  const script = pathToFileURL(join(projectRoot, 'scripts', 'webhook-structs.mjs')).href;
  const { buildWebhookStructsChecker } = (await import(script)) as { buildWebhookStructsChecker(o: { root: string }): string };
  const binary = buildWebhookStructsChecker({ root: projectRoot });
  const input = received.filter((r) => !GITHUB_ONLY.has(r.headers['X-Gitea-Event-Type']!))
    .map((r) => JSON.stringify({ event: r.headers['X-Gitea-Event-Type'], body: JSON.stringify(giteaFields(payloadOf(r as Received))) })).join('\n');
  const run = spawnSync(binary, [], { input, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
