// `admin user totp enable|disable --username NAME`.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import type { Config } from './config.js';
import { loadSecretKey } from './secret.js';
import { usersStore } from '../db/users.js';
import { disableTotp, enableTotp } from '../core/two-factor.js';

export async function adminTotpCommand(db: Knex, config: Config, argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { username: { type: 'string' } } });
  const user = values.username ? await usersStore(db).byName(values.username) : undefined;
  if (!user) {
    process.stderr.write(`error: no such user "${values.username ?? ''}"\n`);
    return 1;
  }
  if (action === 'enable') {
    const uri = await enableTotp(db, user, loadSecretKey(config.SECRET_KEY, config.APP_DATA_PATH));
    process.stdout.write(`two-factor authentication enabled for ${user.name}; add this to an authenticator app (shown once):\n${uri}\n`);
    return 0;
  }
  if (action === 'disable') {
    await disableTotp(db, user);
    process.stdout.write(`two-factor authentication disabled for ${user.name}\n`);
    return 0;
  }
  process.stderr.write('usage: admin user totp enable|disable --username NAME\n');
  return 2;
}
