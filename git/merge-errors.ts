// Typed outcomes of merges that are not bugs: the caller maps each to an HTTP status (409 for
// conflicts and unrelated histories, 500 for Gitea's "already up to date" cases, etc.).

export type MergeStyle = 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only';

/** The operation a conflict happened in: a merge style, or updating a PR head from its base. */
export type ConflictOperation = MergeStyle | 'update-merge' | 'update-rebase';

export class MergeConflictError extends Error {
  override readonly name = 'MergeConflictError';
  constructor(
    readonly style: ConflictOperation,
    readonly conflictedFiles: string[],
    /** For rebases: the original commit that could not be replayed. */
    readonly commitSha?: string,
  ) {
    super(
      commitSha
        ? `conflict replaying ${commitSha} (${style}): ${conflictedFiles.join(', ')}`
        : `merge conflict (${style}): ${conflictedFiles.join(', ')}`,
    );
  }
}

/** fast-forward-only: the base has commits the head does not contain. */
export class NotFastForwardError extends Error {
  override readonly name = 'NotFastForwardError';
  constructor(readonly base: string, readonly head: string) {
    super(`${base} is not an ancestor of ${head}: cannot fast-forward`);
  }
}

/** The two commits share no history. */
export class UnrelatedHistoriesError extends Error {
  override readonly name = 'UnrelatedHistoriesError';
  constructor(readonly base: string, readonly head: string) {
    super(`refusing to merge unrelated histories (${base}, ${head})`);
  }
}

/**
 * Nothing to do: the head is already contained in the base ('already-merged'), the base is already
 * contained in the head when updating ('up-to-date'), or a squash would change nothing
 * ('nothing-to-commit').
 */
export class EmptyMergeError extends Error {
  override readonly name = 'EmptyMergeError';
  constructor(readonly reason: 'already-merged' | 'up-to-date' | 'nothing-to-commit', message?: string) {
    super(message ?? `nothing to merge: ${reason}`);
  }
}
