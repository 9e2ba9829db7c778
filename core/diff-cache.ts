// Large pull request diffs kept on disk by (repository, base commit, head commit, options): the
// first request streams git's output to the client and into a file beside it; later ones are
// served from the file at disk speed. Files are written under a temporary name and renamed, so a
// reader sees a whole diff or none; the total is bounded, oldest out first.
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';

export interface CachedDiff {
  stream: Readable;
  size: number;
}

export class DiffDiskCache {
  /** File name → size, least recently used first. */
  private readonly files = new Map<string, number>();
  private used = 0;
  private readonly ready: Promise<void>;

  constructor(private readonly dir: string, private readonly maxTotal: number, private readonly maxOne: number) {
    // A directory that cannot be made or read leaves the cache empty; writes into it then fail and
    // are abandoned, and the diff is served from git as without a cache.
    this.ready = this.enabled ? this.scan().catch(() => undefined) : Promise.resolve();
  }

  get enabled(): boolean {
    return this.maxTotal > 0 && this.maxOne > 0;
  }

  static keyOf(parts: string[]): string {
    return createHash('sha256').update(parts.join('\0')).digest('hex');
  }

  /** The kept diff of `key`, opened (so a concurrent eviction cannot take it away), or null. */
  async open(key: string): Promise<CachedDiff | null> {
    if (!this.enabled) return null;
    await this.ready;
    const name = `${key}.diff`;
    const fh = await open(join(this.dir, name), 'r').catch(() => null);
    if (!fh) return null;
    const size = (await fh.stat()).size;
    this.touch(name, size);
    // 1 MiB reads: a 9 MiB diff in 9 thread-pool round trips and socket writes, not 144 of 64 KiB.
    return { stream: fh.createReadStream({ highWaterMark: 1024 * 1024 }), size };
  }

  /** `source` passed through unchanged, and kept under `key` once it has ended whole. */
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
