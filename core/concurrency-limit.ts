// At most `size` holders at a time, the rest waiting in arrival order: background work (mergeability
// checks after a base moved, dozens at once in a busy repository) must leave the processor to the
// merges people are waiting for, as Gitea's bounded check queue does.
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * A slot, held until the returned function is called (a second call does nothing). An abort of
   * `signal` while waiting gives up the place in the queue and rejects with the signal's reason.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.size) {
      this.active++;
    } else {
      // The releaser hands its slot over: `active` stays as it is.
      await new Promise<void>((resolve, reject) => {
        const admitted = () => {
          signal?.removeEventListener('abort', gaveUp);
          resolve();
        };
        const gaveUp = () => {
          this.waiting.splice(this.waiting.indexOf(admitted), 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', gaveUp, { once: true });
        this.waiting.push(admitted);
      });
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }

  /** Holders and waiters right now. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }
}
