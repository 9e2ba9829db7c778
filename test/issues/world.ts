// The cast of the issue tests: an owner, a reader, a writer and a stranger, a public repository with
// one commit and a private one, all made through the API.
import type { FastifyInstance } from 'fastify';
import { startTestServices, type TestOptions, type TestServices } from '../helper.js';
import { call, makeUser, type Call } from '../repos/fixtures.js';

export interface World extends TestServices {
  api: (c: Call) => ReturnType<typeof call>;
  headSha: string;
}

export async function startWorld(t: Parameters<typeof startTestServices>[0], options: TestOptions = {}): Promise<World> {
  const s = await startTestServices(t, options);
  for (const name of ['alice', 'rita', 'walt', 'sam']) await makeUser(s.db, name);
  const api = (c: Call) => call(s.app as FastifyInstance, c);
  for (const [name, priv] of [['demo', false], ['secret', true]] as const) {
    const r = await api({ method: 'POST', url: '/api/v1/user/repos', as: 'alice', body: { name, private: priv, auto_init: true } });
    if (r.statusCode !== 201) throw new Error(`create repo ${name}: ${r.statusCode} ${r.body}`);
  }
  for (const [user, permission] of [['rita', 'read'], ['walt', 'write']]) {
    for (const repo of ['demo', 'secret']) {
      const r = await api({ method: 'PUT', url: `/api/v1/repos/alice/${repo}/collaborators/${user}`, as: 'alice', body: { permission } });
      if (r.statusCode !== 204) throw new Error(`collaborator ${user}: ${r.statusCode} ${r.body}`);
    }
  }
  const branch = await api({ url: '/api/v1/repos/alice/demo/branches/main', as: 'alice' });
  const headSha = String(branch.json().commit.id);
  return { ...s, api, headSha };
}
