// Merge commit messages and merge styles as Gitea words and allows them.
import type { RepoRow } from '../../db/repos.js';
import type { MergeStyle } from '../../workflows/pull-messages.js';

export const MERGE_STYLES: readonly MergeStyle[] = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only', 'manually-merged'];

export function isMergeStyle(value: string): value is MergeStyle {
  return (MERGE_STYLES as readonly string[]).includes(value);
}

export function isStyleAllowed(repo: RepoRow, style: MergeStyle): boolean {
  switch (style) {
    case 'merge': return repo.allow_merge_commits;
    case 'rebase': return repo.allow_rebase;
    case 'rebase-merge': return repo.allow_rebase_explicit;
    case 'squash': return repo.allow_squash_merge;
    case 'fast-forward-only': return repo.allow_fast_forward_only_merge;
    case 'manually-merged': return repo.allow_manual_merge;
  }
}

/** Gitea's wording, grammar included. */
export function styleNotAllowedMessage(style: MergeStyle): string {
  return `${style} is not allowed an allowed merge style for this repository`;
}

export interface MergeMessageFacts {
  style: MergeStyle;
  title: string;
  index: number;
  headBranch: string;
  baseBranch: string;
  /** null when head and base are the same repository. */
  headRepoFullName: string | null;
  headRepoDeleted: boolean;
}

/** Gitea's default title per style (GetDefaultMergeMessage). */
export function defaultMergeTitle(f: MergeMessageFacts): string {
  if (f.style === 'squash') return `${f.title} (#${f.index})`;
  const from = f.headRepoDeleted ? `<deleted>:${f.headBranch}` : f.headRepoFullName ? `${f.headRepoFullName}:${f.headBranch}` : f.headBranch;
  return `Merge pull request '${f.title}' (#${f.index}) from ${from} into ${f.baseBranch}`;
}

/** The API's message: the trimmed title or the default, then a non-empty trimmed body after a blank line. */
export function composeMergeMessage(title: string, body: string, defaultTitle: string): string {
  const head = title.trim() || defaultTitle;
  const rest = body.trim();
  return rest ? `${head}\n\n${rest}` : head;
}

export function updateMergeMessage(baseBranch: string, headBranch: string): string {
  return `Merge branch '${baseBranch}' into ${headBranch}`;
}
