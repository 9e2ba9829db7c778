// bench/RESULTS.md is written whole by a full `npm run bench`; a run of some scenarios
// (`--only a,b`) replaces only their sections and summary rows, so single scenarios re-run on a
// quiet machine land next to the rest instead of wiping it. Each section carries its own date,
// commit and load average, so figures from different runs stay readable side by side.

/** The parts of a results file: summary rows and sections, each keyed by scenario name. */
export interface ResultsParts {
  summaryRows: Map<string, string>;
  sections: Map<string, string>;
}

export const SUMMARY_HEADING = '## Summary';

/** Splits an existing RESULTS.md; anything it does not recognise is left out. */
export function parseResults(text: string, scenarioNames: readonly string[]): ResultsParts {
  const known = new Set(scenarioNames);
  const summaryRows = new Map<string, string>();
  const sections = new Map<string, string>();
  const chunks = text.split(/^(?=## )/m);
  for (const chunk of chunks) {
    const title = /^## (.+)$/m.exec(chunk)?.[1]?.trim();
    if (!title) continue;
    if (`## ${title}` === SUMMARY_HEADING) {
      for (const line of chunk.split('\n')) {
        const name = /^\| ([\w-]+) \|/.exec(line)?.[1];
        if (name && known.has(name)) summaryRows.set(name, line);
      }
    } else if (known.has(title)) {
      sections.set(title, chunk.trimEnd());
    }
  }
  return { summaryRows, sections };
}

/** Merges this run's parts over an earlier file's, in the scenarios' own order. */
export function mergeResults(earlier: ResultsParts, now: ResultsParts, order: readonly string[]): ResultsParts {
  const pick = (a: Map<string, string>, b: Map<string, string>) =>
    new Map(order.flatMap((n) => (b.has(n) ? [[n, b.get(n)!] as const] : a.has(n) ? [[n, a.get(n)!] as const] : [])));
  return { summaryRows: pick(earlier.summaryRows, now.summaryRows), sections: pick(earlier.sections, now.sections) };
}

/**
 * A summary row kept from an earlier run written before the table had its RSS and date columns
 * gets them as "not recorded", so the table stays well formed.
 */
export function withSummaryColumns(row: string, columns: number): string {
  const cells = row.slice(1, -1).split(' | ').map((c) => c.trim());
  if (cells.length >= columns) return row;
  const missing = Array.from({ length: columns - cells.length }, () => 'not recorded');
  return `| ${[...cells.slice(0, -1), ...missing, cells.at(-1)].join(' | ')} |`;
}
