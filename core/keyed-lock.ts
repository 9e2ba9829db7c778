// An in-process lock per key: merges into one base branch queue up in this worker instead of
// racing each other's compare-and-swap. Across workers the compare-and-swap still decides.
const tails = new Map<string, Promise<void>>();

/** Runs fn under the key's lock; fn learns whether it had to wait for another holder first. */
export async function withKeyedLock<T>(key: string, fn: (waited: boolean) => Promise<T>): Promise<T> {
  const previous = tails.get(key);
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const tail = (previous ?? Promise.resolve()).then(() => current);
  tails.set(key, tail);
  if (previous) await previous;
  try {
    return await fn(previous !== undefined);
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
