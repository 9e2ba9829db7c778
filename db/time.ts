// Timestamps are stored as unix seconds (as Gitea stores them) and sent as RFC 3339.
export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}

export function unixToIso(unix: number | null | undefined): string | null {
  if (unix === null || unix === undefined) return null;
  return new Date(Number(unix) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
