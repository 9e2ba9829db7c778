// The `admin` command line: `admin user create --username U --email E --password P [--admin]`.
// It never prints passwords; TOTP commands print the otpauth URI once.
import { parseArgs } from 'node:util';
import type { Config } from './config.js';
import { ensureDatabaseExists, openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { createUser } from '../core/accounts.js';
import { ServiceError } from '../core/errors.js';
import { adminTotpCommand } from './admin-totp.js';

const USAGE = `usage:
  admin user create --username NAME --email EMAIL --password PASSWORD [--admin] [--must-change-password]
  admin user totp enable --username NAME     (prints the otpauth URI once)
  admin user totp disable --username NAME`;

export async function runAdminCommand(argv: string[], config: Config): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun !== 'user' || !verb) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  await ensureDatabaseExists(config);
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
    if (verb === 'create') {
      const { values } = parseArgs({
        args: rest,
        options: {
          username: { type: 'string' },
          email: { type: 'string' },
          password: { type: 'string' },
          admin: { type: 'boolean', default: false },
          'must-change-password': { type: 'boolean', default: false },
        },
      });
      if (!values.username || !values.email || !values.password) {
        process.stderr.write(`${USAGE}\n`);
        return 2;
      }
      const user = await createUser(db, {
        username: values.username,
        email: values.email,
        password: values.password,
        isAdmin: values.admin,
        mustChangePassword: values['must-change-password'],
      });
      process.stdout.write(`created user ${user.name} (id ${user.id}${user.is_admin ? ', site administrator' : ''})\n`);
      return 0;
    }
    if (verb === 'totp') return await adminTotpCommand(db, config, rest);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  } catch (err) {
    if (err instanceof ServiceError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.destroy();
  }
}
