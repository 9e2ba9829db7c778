// Small documents while the pool is busy: they render on the event loop, one a turn, rather than
// wait behind a large document in the pool; with only small work ahead they still queue there.
import t from 'tap';
import { startTestServices, type TestServices } from '../helper.js';
import { waitFor } from '../merge/world.js';

const SMALL = '## Small\n\nSome **bold** text and a [link](https://example.com/).';
const SMALL_HTML = '<h2 id="user-content-small">Small</h2>\n<p>Some <strong>bold</strong> text and a <a href="https://example.com/" rel="nofollow">link</a>.</p>\n';

function render(app: TestServices['app'], text: string) {
  return app.inject({ method: 'POST', url: '/api/v1/markdown', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ Mode: 'gfm', Text: text }) });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  if (!(await waitFor(async () => condition(), 10_000, 5))) throw new Error(`timed out waiting until ${what}`);
}

t.test('small documents do not wait behind a large one rendering in the pool', async (t) => {
  const { app, pool } = await startTestServices(t, { dbType: 'sqlite3', env: { MARKUP_BODY_LIMIT: String(4 << 20), POOL_MIN_THREADS: '1', POOL_MAX_THREADS: '1', POOL_TASK_TIMEOUT_MS: '120000' } });
  t.equal((await render(app, SMALL)).body, SMALL_HTML, 'a small document alone');
  // About 1.3 MB in many blocks: its body is parsed, scanned and then rendered in the pool, for seconds.
  const large = 'A paragraph with **bold** and [a link](https://example.com/x).\n\n'.repeat(20_000);
  const finished: string[] = [];
  const completedBefore = pool.stats().completed;
  const largeReply = render(app, large).then((reply) => { finished.push('large'); return reply; });
  // Its render is the task in the pool once the parse and the scan are done.
  await until(() => pool.stats().completed >= completedBefore + 2 && pool.backlogBytes() >= large.length, 'the large render is in the pool');
  const smallReplies = await Promise.all(Array.from({ length: 10 }, (_, i) => render(app, SMALL).then((reply) => { finished.push(`small ${i}`); return reply; })));
  for (const reply of smallReplies) t.equal(reply.body, SMALL_HTML);
  t.notOk(finished.includes('large'), 'all ten small documents were answered while the large one was still rendering');
  const largeDone = await largeReply;
  t.equal(largeDone.statusCode, 200);
  t.ok(largeDone.body.startsWith('<p>A paragraph with <strong>bold</strong>'), 'and the large document rendered');
});

t.test('with only small work ahead, small documents still queue in the pool', async (t) => {
  const { app, pool } = await startTestServices(t, { dbType: 'sqlite3', env: { POOL_MIN_THREADS: '1', POOL_MAX_THREADS: '1' } });
  t.equal((await render(app, SMALL)).body, SMALL_HTML);
  const completedBefore = pool.stats().completed;
  const replies = await Promise.all(Array.from({ length: 10 }, () => render(app, SMALL)));
  for (const reply of replies) t.equal(reply.body, SMALL_HTML);
  // The first takes the free thread and one a turn renders here: the rest wait in the pool, not for turns.
  const inPool = pool.stats().completed - completedBefore;
  t.ok(inPool >= 5, `${inPool} of 10 rendered in the pool`);
});
