// The provider's JWT signing key: an RS256 key pair made on first use and kept as a PEM file under
// <APP_DATA_PATH>/jwt/private.pem (mode 0600), as Gitea keeps JWT_SIGNING_PRIVATE_KEY_FILE.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

export const JWT_ALGORITHM = 'RS256';

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
  publicJwk: JWK;
}

// One data directory per app; tests run several apps in one process, each with its own directory.
const loaded = new Map<string, Promise<SigningKey>>();

function readOrCreatePem(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  try {
    // 'wx': when two processes start together, the first file wins and the other reads it.
    writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
    return pem;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8');
    throw err;
  }
}

async function load(dataPath: string): Promise<SigningKey> {
  const dir = join(dataPath, 'jwt');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const privateKey = createPrivateKey(readOrCreatePem(join(dir, 'private.pem')));
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return { privateKey, publicKey, kid, publicJwk: { ...jwk, kid, alg: JWT_ALGORITHM, use: 'sig' } };
}

export function signingKey(dataPath: string): Promise<SigningKey> {
  let key = loaded.get(dataPath);
  if (!key) {
    key = load(dataPath);
    key.catch(() => loaded.delete(dataPath));
    loaded.set(dataPath, key);
  }
  return key;
}

/** The JWKS document (`GET /login/oauth/keys`). */
export async function jwks(dataPath: string): Promise<{ keys: JWK[] }> {
  return { keys: [(await signingKey(dataPath)).publicJwk] };
}
