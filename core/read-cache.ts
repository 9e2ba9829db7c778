// Answers that are functions of commit ids alone (a merge base, a diff's statistics and files, a
// commit list, one commit's files): computed once, kept in memory up to a byte bound, least
// recently used first out. A force-push or a moved base changes the commit ids and so the key:
// nothing is ever invalidated and nothing stale can be served. Concurrent misses of one key share
// one computation.

interface Entry {
  value: unknown;
  bytes: number;
}

export class ByteLru {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private used = 0;

  /** An answer larger than `limit / largestShare` is not kept: one may not push out most of the others. */
  constructor(private limit: number, private readonly largestShare = 8) {}

  /** Whether an answer of `bytes` would be kept. */
  accepts(bytes: number): boolean {
    return bytes <= this.limit / this.largestShare;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.evict();
  }

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Map order is insertion order: re-inserting makes it the most recently used.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value as T;
  }

  set(key: string, value: unknown, bytes: number): void {
    const size = bytes + key.length * 2 + 64;
    if (!this.accepts(size)) return;
    const old = this.entries.get(key);
    if (old) { this.used -= old.bytes; this.entries.delete(key); }
    this.entries.set(key, { value, bytes: size });
    this.used += size;
    this.evict();
  }

  /** The kept answer of `key`, or `compute`'s (kept when it succeeds). */
  async memo<T>(key: string, compute: () => Promise<T>, sizeOf: (v: T) => number = approximateBytes): Promise<T> {
    const hit = this.get<T>(key);
    if (hit !== undefined) return hit;
    const running = this.pending.get(key);
    if (running) return running as Promise<T>;
    const p = compute().then((v) => {
      this.set(key, v, sizeOf(v));
      return v;
    }).finally(() => this.pending.delete(key));
    this.pending.set(key, p);
    return p;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  private evict(): void {
    for (const [key, e] of this.entries) {
      if (this.used <= this.limit) break;
      this.entries.delete(key);
      this.used -= e.bytes;
    }
  }
}

/** A JSON-shaped value's size in memory, roughly: two bytes per character of its JSON text. */
export function approximateBytes(v: unknown): number {
  return v === undefined ? 16 : JSON.stringify(v).length * 2;
}

/** The process's cache of commit-addressed answers; its bound comes from READ_CACHE_MEMORY_BYTES. */
export const readCache = new ByteLru(32 * 1024 * 1024);
