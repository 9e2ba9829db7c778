// What to do after an attempt: delivered on 2xx; tried again with exponential backoff after a
// timeout, a connection failure, a 5xx or a 429, until the retry window since the event closes;
// failed for good on any other answer (a 4xx, a redirect not followed) or a refused address.

export interface AttemptResponse {
  status: number;
  headers: Record<string, string>;
  /** Truncated. */
  body: string;
}

export type AttemptResult =
  | { kind: 'response'; response: AttemptResponse; durationMs: number }
  /** No answer: `retryable` for timeouts and connection failures, not for a refused address. */
  | { kind: 'error'; message: string; retryable: boolean; durationMs: number };

export type Verdict = 'delivered' | 'retry' | 'failed';

export function judgeAttempt(result: AttemptResult): Verdict {
  if (result.kind === 'error') return result.retryable ? 'retry' : 'failed';
  const { status } = result.response;
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || status === 429) return 'retry';
  return 'failed';
}

export interface RetryPolicy {
  minBackoffMs: number;
  maxBackoffMs: number;
  /** Since the event happened. */
  windowMs: number;
}

/** The wait before the next attempt after `attempts` failed ones: doubling from the minimum, capped. */
export function backoffMs(attempts: number, policy: RetryPolicy): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(policy.minBackoffMs * 2 ** exponent, policy.maxBackoffMs);
}

/** When a delivery that must be retried is tried again; null when its window has closed. */
export function nextAttemptAt(attempts: number, eventMs: number, nowMs: number, policy: RetryPolicy): number | null {
  const at = nowMs + backoffMs(attempts, policy);
  return at - eventMs > policy.windowMs ? null : at;
}
