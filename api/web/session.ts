// Web sessions: a random session id in a cookie signed by @fastify/cookie (key derived from the
// server secret), HttpOnly, SameSite=Lax, Secure on https; the server keeps a row per session under
// a hash of the id, so signing out (deleting the row) revokes the cookie for good.
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie'; // request.cookies, reply.setCookie
import type { Services } from '../services.js';
import { hashToken } from '../../core/auth/tokens.js';
import { nowUnix } from '../../db/time.js';
import { USER_TYPE, usersStore, type UserRow } from '../../db/users.js';
import { webSessionsStore, type WebSessionRow } from '../../db/web-sessions.js';

export const SESSION_COOKIE = 'pullhost_session';
/** A signed-in session lasts a week; an anonymous one (sign-in form, CSRF) an hour. */
export const SIGNED_IN_SECONDS = 7 * 24 * 3600;
export const ANONYMOUS_SECONDS = 3600;
/** Time to type the TOTP code after the password was accepted. */
export const TOTP_STEP_SECONDS = 300;

export interface WebSession {
  idHash: string;
  row: WebSessionRow;
  /** The signed-in user, or null (anonymous, waiting for the TOTP code, or owing a new password). */
  user: UserRow | null;
  /** Signed in, but an administrator required a new password first: only the change-password page serves them. */
  mustChangePassword: UserRow | null;
}

/** The cookie-signing secret: derived, so the server key itself never signs anything else. */
export function cookieSecret(serverKey: Buffer): string {
  return createHmac('sha256', serverKey).update('pullhost web session cookie v1').digest('hex');
}

export function cookieOptions(services: Services, maxAge: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: services.config.APP_URL.startsWith('https:'),
    signed: true,
    maxAge,
  };
}

function usable(user: UserRow | undefined): user is UserRow {
  return Boolean(user && user.type === USER_TYPE.user && user.is_active && !user.prohibit_login);
}

/** Who the session's user is to the pages: signed in, or signed in but owing a new password. */
function sessionUsers(user: UserRow | undefined): Pick<WebSession, 'user' | 'mustChangePassword'> {
  if (!usable(user)) return { user: null, mustChangePassword: null };
  return user.must_change_password ? { user: null, mustChangePassword: user } : { user, mustChangePassword: null };
}

/** The request's session, when its cookie is validly signed and the row is live. */
export async function loadSession(request: FastifyRequest, services: Services): Promise<WebSession | null> {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  const idHash = hashToken(unsigned.value, services.secretKey);
  const row = await webSessionsStore(services.db).byHash(idHash, nowUnix());
  if (!row) return null;
  const user = row.user_id !== null ? await usersStore(services.db).byId(row.user_id) : undefined;
  return { idHash, row, ...sessionUsers(user) };
}

/** A new session (a new id: signing in never keeps the id an attacker might have planted). */
export async function startSession(reply: FastifyReply, services: Services, userId: number | null): Promise<WebSession> {
  const id = randomBytes(32).toString('base64url');
  const now = nowUnix();
  const lifetime = userId === null ? ANONYMOUS_SECONDS : SIGNED_IN_SECONDS;
  const row: WebSessionRow = { id_hash: hashToken(id, services.secretKey), user_id: userId, pending_user_id: null, pending_until: 0, created_unix: now, expires_unix: now + lifetime };
  const store = webSessionsStore(services.db);
  await store.deleteExpired(now);
  await store.insert(row);
  reply.setCookie(SESSION_COOKIE, id, cookieOptions(services, lifetime));
  const user = userId !== null ? await usersStore(services.db).byId(userId) : undefined;
  return { idHash: row.id_hash, row, ...sessionUsers(user) };
}

/** The current session, or a fresh anonymous one (forms need a session for their CSRF token). */
export async function ensureSession(request: FastifyRequest, reply: FastifyReply, services: Services): Promise<WebSession> {
  return (await loadSession(request, services)) ?? startSession(reply, services, null);
}

export async function endSession(reply: FastifyReply, services: Services, session: WebSession | null): Promise<void> {
  if (session) await webSessionsStore(services.db).delete(session.idHash);
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

export async function setPendingTotp(services: Services, session: WebSession, userId: number | null): Promise<void> {
  await webSessionsStore(services.db).setPending(session.idHash, userId, userId === null ? 0 : nowUnix() + TOTP_STEP_SECONDS);
}
