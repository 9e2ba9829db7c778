// Encryption at rest for secrets the server must read back (TOTP seeds): AES-256-GCM under a
// key derived from the server secret, so a copy of the database alone reveals nothing.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

function boxKey(serverKey: Buffer): Buffer {
  return createHmac('sha256', serverKey).update('pullhost secret-box v1').digest();
}

export function sealSecret(plain: string, serverKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', boxKey(serverKey), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

export function openSecret(sealed: string, serverKey: Buffer): string | null {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || !body || !tag) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', boxKey(serverKey), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
