// A fresh instance of this service set up the way the Go SDK's CI sets up Gitea: a new database
// and data directory (a test world listening on a port, with the run's Temporal dev server), whose
// first user is the site administrator test01 / test01 owning one all-scope token named
// gitea-admin (what `gitea admin user create --admin --access-token` makes).
import { startTestServices, type TestServices } from '../helper.js';
import { createUser } from '../../core/accounts.js';
import { hashPassword } from '../../core/auth/passwords.js';
import { usersStore } from '../../db/users.js';
import { SDK_ADMIN, type SdkServer } from './go-sdk-suite.js';

interface Tap {
  teardown(fn: () => unknown): void;
}

export interface SdkInstance {
  services: TestServices;
  server: SdkServer;
}

export async function startSdkInstance(t: Tap): Promise<SdkInstance> {
  const services = await startTestServices(t, { temporal: true, listen: true });
  // Gitea's command line sets any password (its length rule is the web and API's); ours keeps the
  // rule in createUser, so the account is made with a long one and given the SDK's afterwards.
  const user = await createUser(services.db, {
    username: SDK_ADMIN.username, email: SDK_ADMIN.email, password: `${SDK_ADMIN.password}-placeholder`, isAdmin: true,
  });
  await usersStore(services.db).update(user.id, { passwd_hash: await hashPassword(SDK_ADMIN.password), must_change_password: false });
  const url = services.baseUrl.replace(/\/$/, '');
  const token = await fetch(`${url}/api/v1/users/${SDK_ADMIN.username}/tokens`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${SDK_ADMIN.username}:${SDK_ADMIN.password}`).toString('base64')}`,
    },
    body: JSON.stringify({ name: SDK_ADMIN.tokenName, scopes: ['all'] }),
  });
  if (token.status !== 201) throw new Error(`could not make the ${SDK_ADMIN.tokenName} token: ${token.status} ${await token.text()}`);
  return { services, server: { url, username: SDK_ADMIN.username, password: SDK_ADMIN.password } };
}
