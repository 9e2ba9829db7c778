// CSRF protection for every form: a token bound to the session (an HMAC of the session's id hash
// under the server key), put in each form and checked on each POST before anything changes.
import { createHmac } from 'node:crypto';
import { safeEqualHex } from '../../core/auth/tokens.js';
import type { WebSession } from './session.js';

export const CSRF_FIELD = '_csrf';

export function csrfToken(session: WebSession, serverKey: Buffer): string {
  return createHmac('sha256', serverKey).update(`pullhost csrf v1:${session.idHash}`).digest('base64url');
}

/** True only for the token of this very session; a missing session or field is a failure. */
export function csrfValid(session: WebSession | null, body: unknown, serverKey: Buffer): boolean {
  if (!session || typeof body !== 'object' || body === null) return false;
  const presented = (body as Record<string, unknown>)[CSRF_FIELD];
  return typeof presented === 'string' && safeEqualHex(presented, csrfToken(session, serverKey));
}
