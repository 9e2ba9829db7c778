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

export async function checkWithGiteaStructs(received: Array<Pick<Received, 'headers' | 'body'>>): Promise<StructsCheck> {
  const script = pathToFileURL(join(projectRoot, 'scripts', 'webhook-structs.mjs')).href;
  const { buildWebhookStructsChecker } = (await import(script)) as { buildWebhookStructsChecker(o: { root: string }): string };
  const binary = buildWebhookStructsChecker({ root: projectRoot });
  const input = received.map((r) => JSON.stringify({ event: r.headers['X-Gitea-Event-Type'], body: JSON.stringify(payloadOf(r as Received)) })).join('\n');
  const run = spawnSync(binary, [], { input, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
