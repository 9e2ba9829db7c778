// Work-in-progress titles: a pull request whose title starts with one of the configured prefixes
// (Gitea's WORK_IN_PROGRESS_PREFIXES, default `WIP:` and `[WIP]`) is a draft and cannot be merged.
/** The configured prefixes; callers keep the list instead of re-splitting the setting per record. */
export function workInProgressPrefixes(config: { WORK_IN_PROGRESS_PREFIXES: string }): string[] {
  return config.WORK_IN_PROGRESS_PREFIXES.split(',').map((p) => p.trim()).filter(Boolean);
}

/** Case-insensitive prefix match, as Gitea's HasWorkInProgressPrefix. */
export function isWorkInProgress(title: string, prefixes: string[]): boolean {
  const upper = title.toUpperCase();
  return prefixes.some((p) => upper.startsWith(p.toUpperCase()));
}
