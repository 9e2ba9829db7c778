// OAuth2 applications of a user (Gitea's routers/api/v1/user/app.go rules): the client secret is
// made here, returned once (on create and on every update, which regenerates it) and stored hashed.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { NotFoundError, UnprocessableError } from '../errors.js';
import { hashToken, safeEqualHex } from '../auth/tokens.js';
import { oauth2Store, type OAuth2ApplicationRow } from '../../db/oauth2.js';

export interface ApplicationInput {
  name: string;
  redirect_uris?: string[] | undefined;
  confidential_client?: boolean | undefined;
  skip_secondary_authorization?: boolean | undefined;
}

export interface ApplicationWithSecret {
  app: OAuth2ApplicationRow;
  /** Plaintext, for the response only. */
  clientSecret: string;
}

/** Gitea's secret format: `gto_` and 32 random bytes. */
function generateClientSecret(): string {
  return `gto_${randomBytes(32).toString('base64url')}`;
}

/** Redirect URIs are compared exactly later, so they must at least be absolute URIs without a fragment. */
function checkInput(input: ApplicationInput): string[] {
  if (typeof input.name !== 'string' || input.name.trim() === '') throw new UnprocessableError('[name]: Required');
  if (input.name.length > 255) throw new UnprocessableError('[name]: MaxSize');
  const uris = input.redirect_uris ?? [];
  for (const uri of uris) {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      throw new UnprocessableError(`[redirect_uris]: invalid URL: ${uri}`);
    }
    if (parsed.hash !== '' || uri.includes('#')) throw new UnprocessableError(`[redirect_uris]: must not contain a fragment: ${uri}`);
  }
  return uris;
}

export async function createApplication(db: Knex, serverKey: Buffer, userId: number, input: ApplicationInput): Promise<ApplicationWithSecret> {
  const redirectUris = checkInput(input);
  const clientSecret = generateClientSecret();
  const app = await oauth2Store(db).insertApplication({
    user_id: userId,
    name: input.name,
    client_id: randomUUID(),
    client_secret_hash: hashToken(clientSecret, serverKey),
    redirect_uris: redirectUris,
    // Go's zero value, as Gitea's API binding leaves it when the field is absent.
    confidential_client: input.confidential_client ?? false,
    skip_secondary_authorization: input.skip_secondary_authorization ?? false,
  });
  return { app, clientSecret };
}

/** The user's own application, or 404 (another user's application is not revealed). */
export async function ownApplication(db: Knex, userId: number, id: number): Promise<OAuth2ApplicationRow> {
  const app = Number.isSafeInteger(id) && id > 0 ? await oauth2Store(db).applicationById(id) : undefined;
  if (!app || app.user_id !== userId) throw new NotFoundError();
  return app;
}

/** PATCH replaces the options and regenerates the secret (Gitea's UpdateOauth2Application). */
export async function updateApplication(db: Knex, serverKey: Buffer, userId: number, id: number, input: ApplicationInput): Promise<ApplicationWithSecret> {
  const redirectUris = checkInput(input);
  await ownApplication(db, userId, id);
  const clientSecret = generateClientSecret();
  const changed = await oauth2Store(db).updateApplication(id, userId, {
    name: input.name,
    redirect_uris: redirectUris,
    confidential_client: input.confidential_client ?? false,
    skip_secondary_authorization: input.skip_secondary_authorization ?? false,
    client_secret_hash: hashToken(clientSecret, serverKey),
  });
  if (!changed) throw new NotFoundError();
  return { app: await ownApplication(db, userId, id), clientSecret };
}

export async function deleteApplication(db: Knex, userId: number, id: number): Promise<void> {
  if (!(await oauth2Store(db).deleteApplication(id, userId))) throw new NotFoundError();
}

export function clientSecretMatches(app: OAuth2ApplicationRow, presented: string, serverKey: Buffer): boolean {
  return safeEqualHex(app.client_secret_hash, hashToken(presented, serverKey));
}

/** RFC 6749 §3.1.2.3 simple string comparison: no normalisation, no prefix or pattern matching. */
export function hasRedirectUri(app: OAuth2ApplicationRow, uri: string): boolean {
  return app.redirect_uris.includes(uri);
}
