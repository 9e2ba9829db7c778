// Runs inside the pool's worker threads: one entry point dispatching on the task kind.
import { renderDocument } from './markup/render.js';
import { extractReferenceCandidates, type ReferenceCandidates } from './markup/references.js';
import type { RenderRequest, RenderResult } from './markup/types.js';
// The parser alone: diff-parse has no Node imports, so the threads do not load the git runner.
import { parseUnifiedDiff } from '../git/diff-parse.js';

export type PoolTask =
  | { kind: 'render'; request: RenderRequest }
  | { kind: 'scanReferences'; text: string; context: string; limit: number; appUrl: string }
  | { kind: 'parseDiff'; text: string; maxLines: number; maxLineCharacters: number };

export type PoolTaskResult<K extends PoolTask['kind']> =
  K extends 'render' ? RenderResult : K extends 'scanReferences' ? ReferenceCandidates : ReturnType<typeof parseUnifiedDiff>;

export default function runTask(task: PoolTask): unknown {
  switch (task.kind) {
    case 'render':
      return renderDocument(task.request);
    case 'scanReferences':
      return extractReferenceCandidates(task.text, task.context, task.limit, task.appUrl);
    case 'parseDiff':
      return parseUnifiedDiff(task.text, { maxLines: task.maxLines, maxLineCharacters: task.maxLineCharacters });
    default:
      throw new Error(`unknown pool task ${(task as { kind: string }).kind}`);
  }
}
