// What the Temporal UI shows of a pull request's workflow: search attributes to find it, the memo to
// read it. Each search attribute and memo upsert is a history event and a visibility update on the
// server (about 10 ms of a merge request here), so only what changed since the last write is sent.
import { upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { pullIndexKey, pullOperationKey, pullRepositoryKey, pullStateKey } from './search-attributes.js';
import type { PullKey } from './pull-messages.js';

export interface PullDescription {
  repository: string;
  state: string;
  /** The operation running now, '' for none. */
  operation: string;
  lastOperation: string;
  lastRequestId: string;
  /** "<style> by user <id>", or null. */
  autoMerge: string | null;
}

export class Describer {
  private readonly written = new Map<string, unknown>();

  constructor(private readonly key: PullKey) {}

  write(d: PullDescription): void {
    const attributes = [
      { key: pullRepositoryKey, value: d.repository || null },
      { key: pullIndexKey, value: this.key.index },
      { key: pullStateKey, value: d.state },
      { key: pullOperationKey, value: d.operation || null },
    ] as const;
    const memo: Record<string, unknown> = {
      repoId: this.key.repoId, index: this.key.index, repository: d.repository, state: d.state, operation: d.operation || null,
      lastOperation: d.lastOperation, lastRequestId: d.lastRequestId, autoMerge: d.autoMerge,
    };
    const changedAttributes = attributes.filter((a) => !this.same(`attribute:${a.key.name}`, a.value));
    if (changedAttributes.length > 0) upsertSearchAttributes([...changedAttributes]);
    const changedMemo = Object.entries(memo).filter(([name, value]) => !this.same(`memo:${name}`, value));
    if (changedMemo.length > 0) upsertMemo(Object.fromEntries(changedMemo));
  }

  /** Whether `value` is what was last written under `name`; remembers it as written either way. */
  private same(name: string, value: unknown): boolean {
    const unchanged = this.written.has(name) && this.written.get(name) === value;
    this.written.set(name, value);
    return unchanged;
  }
}
