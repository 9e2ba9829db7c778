// The git layer's public surface: callers (core/, workers/, api/) import from here or from the
// individual modules.
export * from './runner.js';
export * from './refs.js';
export * from './ref-files.js';
export * from './branch-count.js';
export * from './objects.js';
export * from './repository.js';
export * from './commit-parse.js';
export * from './commits.js';
export * from './merge-errors.js';
export * from './merge-tree.js';
export * from './merge-tree-conversation.js';
export * from './rebase.js';
export {
  mergeNoFastForward, squash, fastForwardOnly, rebase, rebaseMerge, mergeCommitForStyle, knownMergeCommit, predictMergeCommit, updateBranchFromBase,
  type KnownMerge, type StyleMergeRequest, type UpdateFromBaseRequest,
} from './merge.js';
export * from './diff.js';
export * from './quoted-path.js';
export * from './pkt-line.js';
export * from './smart-http.js';
export * from './tree.js';
export * from './tree-edit.js';
export * from './history.js';
export * from './tags.js';
export * from './archive.js';
export * from './commit-diff.js';
