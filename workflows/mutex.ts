// A deterministic FIFO lock for workflow code: operations on one pull request never interleave.
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private held = 0;

  get locked(): boolean {
    return this.held > 0;
  }

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.held++;
    try {
      await previous;
      return await fn();
    } finally {
      this.held--;
      release();
    }
  }
}
