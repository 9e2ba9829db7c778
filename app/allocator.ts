// The memory allocator the service's process runs with. glibc's malloc keeps what threads freed
// in its arenas: a minute after 1,000 auto-merges the service still held 438-509 MiB, most of it
// free memory in the arenas of threads that had ended (the rendering pool's, idle) or gone quiet.
// jemalloc, with a background thread returning freed pages after a second, held 258 MiB
// (bench/auto-merge-scale.ts 1000 1). It is loaded by the dynamic linker, so the launcher sets it
// for the process it starts (`npm start`, bench/world.ts); main.ts says which one runs.
import { existsSync, readFileSync } from 'node:fs';

/** Where Debian's and Ubuntu's libjemalloc2 (and other distributions' jemalloc) put the library. */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib64/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2',
];

/** Freed pages go back within a second, from every arena, even one no thread allocates from any more. */
export const JEMALLOC_CONF = 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0';

/**
 * The environment that makes a process started with it run on jemalloc: nothing when
 * PULLHOST_ALLOCATOR=system, when it is already preloaded, or when no library is installed.
 * PULLHOST_JEMALLOC_PATH names a library elsewhere; an operator's MALLOC_CONF is kept.
 */
export function allocatorEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (env.PULLHOST_ALLOCATOR === 'system' || env.LD_PRELOAD?.includes('jemalloc')) return {};
  const library = env.PULLHOST_JEMALLOC_PATH || JEMALLOC_PATHS.find((path) => existsSync(path));
  if (!library) return {};
  return { LD_PRELOAD: [library, env.LD_PRELOAD].filter(Boolean).join(' '), MALLOC_CONF: env.MALLOC_CONF || JEMALLOC_CONF };
}

/** Which allocator this process runs with, for the start-up message. */
export function runningAllocator(): 'jemalloc' | 'system' {
  try {
    return readFileSync('/proc/self/maps', 'utf8').includes('jemalloc') ? 'jemalloc' : 'system';
  } catch {
    return 'system';
  }
}
