import t from 'tap';
import { mergeTree, UnrelatedHistoriesError } from '../../git/merge.js';
import { mergeTreeInConversation, openMergeTreeConversations } from '../../git/merge-tree-conversation.js';
import { commitTreeInStore } from '../../git/objects.js';
import { gitCommandStats } from '../../git/runner.js';
import { alice, bareRepo, commit } from './helpers.js';
import { waitFor } from '../merge/world.js';

const mergeTrees = () => gitCommandStats().get('merge-tree')?.count ?? 0;

t.test('a chain of merges in one process: the answers mergeTree gives, a commit written meanwhile is seen', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'x\n', b: 'y\n' }, 'root');
  const heads = await Promise.all(['c', 'd', 'e'].map((f) => commit(repo, root, { [f]: `${f}\n` }, `adds ${f}`)));
  const conflicting = await commit(repo, root, { a: 'head\n', b: 'head\n' }, 'conflicting');
  const before = mergeTrees();
  let tip = root;
  for (const head of heads) {
    const merged = await mergeTreeInConversation(repo, tip, head);
    t.same(merged, await mergeTree(repo, tip, head), 'the same tree as a process of its own');
    if (!merged.clean) throw new Error('expected a clean merge');
    // The next merge starts from a commit written after the conversation started, as a loose object (as a chain writes it).
    tip = await commitTreeInStore(repo, { tree: merged.tree, parents: [tip, head], message: 'merge', author: alice, committer: alice });
  }
  const base = await commit(repo, tip, { a: 'base\n', b: 'base\n' }, 'base edits');
  const conflict = await mergeTreeInConversation(repo, base, conflicting);
  t.same(conflict, await mergeTree(repo, base, conflicting));
  t.same(conflict.clean ? [] : conflict.conflictedFiles, ['a', 'b'], 'conflicted paths named');
  // Four merges asked in conversation, four of their own to compare: five processes, not eight.
  t.equal(mergeTrees() - before, 5, 'one process answered every merge of the conversation');
  t.equal(openMergeTreeConversations(), 1);
});

t.test('what git refuses ends the process: the error comes from a process of its own, the next merge starts another', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'x\n' }, 'root');
  const head = await commit(repo, root, { b: 'b\n' }, 'adds b');
  const lonely = await commit(repo, null, { z: '1' }, 'unrelated');
  await mergeTreeInConversation(repo, root, head);
  await t.rejects(mergeTreeInConversation(repo, root, lonely), UnrelatedHistoriesError);
  t.same(await mergeTreeInConversation(repo, root, head), await mergeTree(repo, root, head), 'answered after the refusal');
  await t.rejects(mergeTreeInConversation(repo, root, 'refs/heads/main'), 'no such ref name');
  await t.rejects(mergeTreeInConversation(repo, '--output=x', head), TypeError, 'an option is refused before git');
});

t.test('an idle process ends', async (t) => {
  const repo = await bareRepo(t);
  const root = await commit(repo, null, { a: 'x\n' }, 'root');
  const head = await commit(repo, root, { b: 'b\n' }, 'adds b');
  // The earlier tests' processes end on their own idle timers, which may run out at any moment of
  // this one on a slow machine: wait for them first, so the count below is this test's alone.
  await waitFor(async () => openMergeTreeConversations() === 0, 10_000, 100);
  t.equal(openMergeTreeConversations(), 0, "the earlier tests' processes have ended");
  await mergeTreeInConversation(repo, root, head);
  t.equal(openMergeTreeConversations(), 1, 'one process for the merge');
  await new Promise((r) => setTimeout(r, 2_500));
  t.equal(openMergeTreeConversations(), 0, 'ended after two seconds without a merge');
});
