// Messages between the service and its git spawn helper (IPC with Node's structured-clone
// serialization, so buffers and undefined environment entries cross as they are).
import type { GitEnv } from './runner.js';

export interface HelperRequest {
  id: number;
  args: string[];
  cwd: string;
  /** git's complete environment; undefined entries are left out. */
  env: GitEnv;
  input?: string | Buffer;
  encoding: 'utf8' | 'buffer';
  maxBuffer: number;
  timeoutMs: number;
}

export type HelperReply =
  | { id: number; ok: true; stdout: string | Buffer; stderr: string | Buffer; exitCode: number }
  /** git could not run to completion: timed out, too much output, could not start. */
  | { id: number; ok: false; timedOut: boolean; code: string | null; message: string; stderr: string };
