// RFC 6749 §5.2 errors of the token endpoint, and the redirect errors of the authorization endpoint.
export type OAuth2ErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error';

export class OAuth2Error extends Error {
  constructor(
    readonly code: OAuth2ErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'OAuth2Error';
  }

  body(): { error: OAuth2ErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

export const UNSUPPORTED_GRANT_TYPE_DESCRIPTION = 'Only refresh_token or authorization_code grant type is supported';
