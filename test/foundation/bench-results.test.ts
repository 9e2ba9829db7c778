import t from 'tap';
import { mergeResults, parseResults, withSummaryColumns } from '../../bench/results-file.js';

const ORDER = ['markdown', 'merge', 'spawn'];

const EARLIER = [
  '# Benchmark results', '', 'intro', '', '## Machine', '', '| what | value |', '|---|---|', '| CPU | 2 |', '',
  '## Summary', '', '| scenario | result |', '|---|---|', '| markdown | passed |', '| merge | passed |', '| spawn | passed |', '',
  '## markdown', '', 'old markdown figures', '',
  '## merge', '', 'old merge figures', '### a subsection', 'stays with merge', '',
  '## spawn', '', 'old spawn figures', '',
  '## something hand-written', '', 'not a scenario', '',
].join('\n');

t.test('a results file splits into summary rows and sections by scenario name', async (t) => {
  const parts = parseResults(EARLIER, ORDER);
  t.same([...parts.summaryRows.keys()], ORDER);
  t.equal(parts.summaryRows.get('merge'), '| merge | passed |');
  t.same([...parts.sections.keys()], ORDER, 'the hand-written section and the machine table are not scenarios');
  t.equal(parts.sections.get('merge'), '## merge\n\nold merge figures\n### a subsection\nstays with merge');
});

t.test("a run of some scenarios replaces only theirs, in the scenarios' order", async (t) => {
  const now = {
    summaryRows: new Map([['merge', '| merge | **FAILED** (exit 1) |']]),
    sections: new Map([['merge', '## merge\n\nnew merge figures']]),
  };
  const merged = mergeResults(parseResults(EARLIER, ORDER), now, ORDER);
  t.same([...merged.sections.keys()], ORDER);
  t.equal(merged.sections.get('merge'), '## merge\n\nnew merge figures');
  t.equal(merged.sections.get('markdown'), '## markdown\n\nold markdown figures');
  t.equal(merged.summaryRows.get('merge'), '| merge | **FAILED** (exit 1) |');
  t.equal(merged.summaryRows.get('spawn'), '| spawn | passed |');
});

t.test('with no earlier file, only this run is there', async (t) => {
  const merged = mergeResults({ summaryRows: new Map(), sections: new Map() }, {
    summaryRows: new Map([['spawn', '| spawn | passed |']]), sections: new Map([['spawn', '## spawn']]),
  }, ORDER);
  t.same([...merged.sections.keys()], ['spawn']);
  t.same([...merged.summaryRows.keys()], ['spawn']);
});

t.test('a summary row from before the RSS and date columns gets them, marked not recorded', async (t) => {
  t.equal(withSummaryColumns('| spawn | passed | 12.2 | `node dist/bench/spawn.js 40` |', 6),
    '| spawn | passed | 12.2 | not recorded | not recorded | `node dist/bench/spawn.js 40` |');
  const current = '| markdown | passed | 102.3 | 2.4 / 167.8 / 386.5 | 2026-11-27 17:02 UTC | `node dist/bench/markdown.js 3` |';
  t.equal(withSummaryColumns(current, 6), current, 'a complete row is left as it is');
});
