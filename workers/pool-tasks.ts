// Runs inside the pool's worker threads: one entry point dispatching on the task kind.
import { renderDocument } from './markup/render.js';
import type { RenderRequest, RenderResult } from './markup/types.js';
import { parseUnifiedDiff } from '../git/diff.js';

export type PoolTask =
  | { kind: 'render'; request: RenderRequest }
  | { kind: 'parseDiff'; text: string; maxLines: number; maxLineCharacters: number };

export type PoolTaskResult<K extends PoolTask['kind']> = K extends 'render' ? RenderResult : ReturnType<typeof parseUnifiedDiff>;

export default function runTask(task: PoolTask): unknown {
  switch (task.kind) {
    case 'render':
      return renderDocument(task.request);
    case 'parseDiff':
      return parseUnifiedDiff(task.text, { maxLines: task.maxLines, maxLineCharacters: task.maxLineCharacters });
    default:
      throw new Error(`unknown pool task ${(task as { kind: string }).kind}`);
  }
}
