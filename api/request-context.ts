// What authentication leaves on each request, and what a route declares about the token scope it
// needs. Filled by the auth plugin (api/plugins/auth.ts); read by every route.
import type { UserRow } from '../db/users.js';
import type { AccessTokenScope, ScopeCategory } from '../core/auth/scopes.js';

export interface AuthInfo {
  method: 'none' | 'password' | 'token' | 'oauth2';
  /** Scopes of the token used; null when the request is not limited by scopes (password). */
  scopes: AccessTokenScope[] | null;
  tokenId: number | null;
  /** The authenticated user before sudo; equals the doer without sudo. */
  actualUser: UserRow | null;
  /**
   * The token carries `public-only`: private repositories, organizations and users must be refused
   * (403 `token scope is limited to public ...`). Always set by the auth plugin.
   */
  publicOnly?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The user the request acts as (after sudo), or null for anonymous requests. */
    doer: UserRow | null;
    auth: AuthInfo;
  }
  interface FastifyContextConfig {
    /** Token scope categories the route needs; the level comes from the HTTP method. */
    scope?: ScopeCategory | ScopeCategory[];
    /** Token endpoints: only basic authentication with the account password is accepted. */
    basicAuthOnly?: boolean;
  }
}

export {};
