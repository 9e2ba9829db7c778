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
