// Large pull request diffs kept on disk by (repository, base commit, head commit, options): the
// first request streams git's output to the client and into a file beside it; later ones are
// served from the file. Files are written under a temporary name and renamed, so a reader sees a
// whole diff or none; the total is bounded, oldest out first. The diffs read most recently are
// also kept whole in memory, up to a bound of their own, and sent as views of that one buffer:
// streaming a file allocates a new buffer per chunk per request, and at tens of megabytes a
// second the dead ones pile up faster than the garbage collector gives them back (measured with a
// bare node:http server, 9 MiB at 4 connections: 87-104 MiB above the start while streaming the
// file, 9-16 MiB sending views of one buffer, and a third faster).
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { ByteLru } from './read-cache.js';

export interface CachedDiff {
  stream: Readable;
  size: number;
}

const CHUNK = 1024 * 1024;

/** `whole` as a stream of 1 MiB views into it: nothing copied, so concurrent answers share one buffer. */
function viewsOf(whole: Buffer): Readable {
  let offset = 0;
  return new Readable({
    read() {
      const end = Math.min(whole.length, offset + CHUNK);
      this.push(offset < end ? whole.subarray(offset, end) : null);
      offset = end;
    },
  });
}

export class DiffDiskCache {
  /** File name → size, least recently used first. */
  private readonly files = new Map<string, number>();
  private used = 0;
  /** The directory made and what an earlier run left counted: at the first open, not at start. */
  private ready: Promise<void> | null = null;

  /** Whole diffs by key, most recently read last; each up to a quarter of the bound. */
  private readonly memory: ByteLru;

  constructor(private readonly dir: string, private readonly maxTotal: number, private readonly maxOne: number, memoryBytes = 0) {
    this.memory = new ByteLru(memoryBytes, 4);
  }

  get enabled(): boolean {
    return this.maxTotal > 0 && this.maxOne > 0;
  }

  static keyOf(parts: string[]): string {
    return createHash('sha256').update(parts.join('\0')).digest('hex');
  }

  /**
   * The kept diff of `key`, from memory or opened (so a concurrent eviction cannot take it away), or
   * null. The first call makes the directory that `capture` writes into.
   */
  async open(key: string): Promise<CachedDiff | null> {
    if (!this.enabled) return null;
    const held = this.memory.get<Buffer>(key);
    if (held) return { stream: viewsOf(held), size: held.length };
    // Made at the first diff asked for, not when the service starts: a data directory removed
    // meanwhile (a test's, at its end) is not made again by a scan that started late. A directory
    // that cannot be made or read leaves the cache empty; writes into it then fail and are
    // abandoned, and the diff is served from git as without a cache.
    await (this.ready ??= this.scan().catch(() => undefined));
    const name = `${key}.diff`;
    const fh = await open(join(this.dir, name), 'r').catch(() => null);
    if (!fh) return null;
    let size: number;
    try {
      size = (await fh.stat()).size;
      this.touch(name, size);
      if (this.memory.accepts(size)) {
        // Concurrent first reads of one diff share one read of the file.
        const whole = await this.memory.memo(key, () => fh.readFile(), (b) => b.length);
        await fh.close();
        return { stream: viewsOf(whole), size: whole.length };
      }
    } catch {
      await fh.close().catch(() => undefined);
      return null;
    }
    // 1 MiB reads: a large diff in a few thread-pool round trips and socket writes, not one per 64 KiB.
    return { stream: fh.createReadStream({ highWaterMark: CHUNK }), size };
  }

  /** `source` passed through unchanged, and kept under `key` once it has ended whole (after an `open` that missed). */
  capture(key: string, source: Readable): Readable {
    if (!this.enabled) return source;
    const name = `${key}.diff`;
    const tmp = join(this.dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    let file: WriteStream | null = createWriteStream(tmp);
    let written = 0;
    const abandon = () => {
      file?.destroy();
      file = null;
      unlink(tmp).catch(() => undefined);
    };
    file.on('error', abandon);
    const tee = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        written += chunk.length;
        if (file && written > this.maxOne) abandon();
        file?.write(chunk);
        done(null, chunk);
      },
      flush: (done) => {
        const f = file;
        if (f) {
          f.end(() => {
            rename(tmp, join(this.dir, name)).then(() => this.touch(name, written), abandon);
          });
        }
        done();
      },
    });
    source.on('error', (err) => { abandon(); tee.destroy(err); });
    // A client gone before the end: the file is incomplete, and git must stop too (pipe would leave it paused).
    tee.on('close', () => {
      if (tee.writableFinished) return;
      abandon();
      source.destroy();
    });
    return source.pipe(tee);
  }

  private touch(name: string, size: number): void {
    const old = this.files.get(name);
    if (old !== undefined) { this.files.delete(name); this.used -= old; }
    this.files.set(name, size);
    this.used += size;
    for (const [n, s] of this.files) {
      if (this.used <= this.maxTotal) break;
      this.files.delete(n);
      this.used -= s;
      unlink(join(this.dir, n)).catch(() => undefined);
    }
  }

  /** What an earlier run left, oldest first, counted against the bound; stray temporary files removed. */
  private async scan(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const found: Array<{ name: string; size: number; at: number }> = [];
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const st = await stat(join(this.dir, name)).catch(() => null);
      if (!st) continue;
      if (name.endsWith('.tmp')) {
        if (Date.now() - st.mtimeMs > 3_600_000) await unlink(join(this.dir, name)).catch(() => undefined);
      } else if (name.endsWith('.diff')) found.push({ name, size: st.size, at: st.mtimeMs });
    }
    for (const f of found.sort((a, b) => a.at - b.at)) this.touch(f.name, f.size);
  }
}
