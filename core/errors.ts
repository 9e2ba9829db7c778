// Typed errors that carry the HTTP status they mean; the API maps them in one place.
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A body to send instead of Gitea's {message,url} (e.g. the merge-conflict struct). */
    readonly rawBody?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends ServiceError {
  constructor(message: string) { super(400, message); }
}
export class UnauthorizedError extends ServiceError {
  constructor(message = 'invalid username, password or token') { super(401, message); }
}
export class ForbiddenError extends ServiceError {
  constructor(message = 'forbidden') { super(403, message); }
}
export class NotFoundError extends ServiceError {
  constructor(message = 'not found') { super(404, message); }
}
export class MethodNotAllowedError extends ServiceError {
  constructor(message: string) { super(405, message); }
}
export class ConflictError extends ServiceError {
  constructor(message: string, rawBody?: unknown) { super(409, message, rawBody); }
}
export class PreconditionFailedError extends ServiceError {
  constructor(message: string) { super(412, message); }
}
export class UnprocessableError extends ServiceError {
  constructor(message: string) { super(422, message); }
}
export class LockedError extends ServiceError {
  constructor(message = 'repo is archived') { super(423, message); }
}
export class TooManyRequestsError extends ServiceError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}
export class UnavailableError extends ServiceError {
  constructor(message: string, retryAfterSeconds = 5) {
    super(503, message, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}

/**
 * The repository storage is full or cannot be written. 507 Insufficient Storage (RFC 4918) says
 * exactly that the server could not store what the request needed, and a full disk is the
 * operator's to fix: 503 would tell clients and load balancers to retry another node instead.
 */
export class InsufficientStorageError extends ServiceError {
  constructor(message = 'the repository storage is full or not writable; try again once space has been freed') { super(507, message); }
}

// What a failed write says: Node's error code, or git's message (git runs with LC_ALL=C). git
// words a lock file it created but could not fill without the reason ("couldn't write '...lock'").
const STORAGE_CODES = ['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS'];
const STORAGE_MESSAGES = /No space left on device|Disk quota exceeded|File too large|Read-only file system|couldn't write '[^']*\.lock'/;

/** The storage failure behind `err` (a file write or a git process), or null for any other error. */
export function storageFailure(err: unknown): InsufficientStorageError | null {
  const e = err as { code?: unknown; stderr?: unknown; message?: unknown } | null;
  if (STORAGE_CODES.includes(String(e?.code)) || STORAGE_MESSAGES.test(`${String(e?.stderr ?? '')}\n${String(e?.message ?? '')}`)) return new InsufficientStorageError();
  return null;
}
