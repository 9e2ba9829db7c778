// The server secret: SECRET_KEY when set, otherwise a random key made once under APP_DATA_PATH.
import { randomBytes, createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadSecretKey(configured: string, dataPath: string): Buffer {
  if (configured) return createHash('sha256').update(configured).digest();
  const file = join(dataPath, 'secret.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  mkdirSync(dataPath, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  return key;
}
