// PKCE (RFC 7636): S256 and, as Gitea allows it, plain.
import { createHash } from 'node:crypto';
import { safeEqualHex } from '../auth/tokens.js';

export const CODE_CHALLENGE_METHODS = ['S256', 'plain'] as const;
export type CodeChallengeMethod = (typeof CODE_CHALLENGE_METHODS)[number];

export function isCodeChallengeMethod(value: string): value is CodeChallengeMethod {
  return (CODE_CHALLENGE_METHODS as readonly string[]).includes(value);
}

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * True when the code was bound to no challenge, or the verifier answers it. The comparison is
 * constant-time (safeEqualHex works on any strings of equal length).
 */
export function verifyPkce(challenge: string, method: string, verifier: string | undefined): boolean {
  if (challenge === '') return true;
  if (typeof verifier !== 'string' || !VERIFIER_PATTERN.test(verifier)) return false;
  const computed = method === 'S256' ? s256Challenge(verifier) : method === 'plain' || method === '' ? verifier : null;
  return computed !== null && safeEqualHex(computed, challenge);
}
