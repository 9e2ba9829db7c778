// CSV and TSV files rendered as Gitea's data table: first row as header, a line-number column.
import { readCsvRecords } from './csv-reader.js';
import { extensionOf } from './modes.js';
import type { RepoLinks } from './types.js';

/** Gitea's defaults for `[ui.csv] MAX_FILE_SIZE` and `MAX_ROWS`. */
export const CSV_MAX_CHARACTERS = 524288;
export const CSV_MAX_ROWS = 2500;
/** Gitea guesses the delimiter from the first 10k of the file, at most 10 lines. */
const GUESS_SAMPLE = 10000;
const GUESS_LINES = 10;
const CANDIDATE_DELIMITERS = [',', '\t', ';', '|', '@'];

function escapeField(field: string): string {
  return field.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

const isDelimiter = (c: string | undefined) => c !== undefined && ',@\t;|'.includes(c);

/** A delimiter written right before (spaces allowed) or right after the first quoted value. */
function delimiterAroundQuotes(sample: string): string | null {
  const first = sample.indexOf('"');
  if (first < 0 || sample.indexOf('"', first + 1) < 0) return null;
  let before = first;
  while (before > 0 && sample[before - 1] === ' ') before--;
  if (isDelimiter(sample[before - 1])) return sample[before - 1]!;
  let end = first;
  for (;;) {
    end = sample.indexOf('"', end + 1) + 1;
    if (sample[end] !== '"' || sample.indexOf('"', end + 1) < 0) break;
  }
  return isDelimiter(sample[end]) ? sample[end]! : null;
}

/** Gitea's guess: the candidate that parses the first lines cleanly into the most columns. */
function guessDelimiter(sample: string): string {
  const aroundQuotes = delimiterAroundQuotes(sample);
  if (aroundQuotes) return aroundQuotes;
  let lines = sample.replace(/"[^"]*"/g, '').split('\n');
  if (lines.length > GUESS_LINES) lines = lines.slice(0, GUESS_LINES);
  else if (lines.length > 1 && sample.length >= GUESS_SAMPLE) lines = lines.slice(0, -1);
  const text = lines.join('\n');
  let best = ',';
  let bestColumns = 0;
  for (const comma of CANDIDATE_DELIMITERS) {
    let columns = -1;
    readCsvRecords(text, { comma, trimLeadingSpace: false }, (record) => {
      if (record.error) { columns = -1; return false; }
      if (columns < 0) columns = record.fields.length;
      return true;
    });
    if (columns > bestColumns) {
      best = comma;
      bestColumns = columns;
    }
  }
  return best;
}

function delimiterFor(filePath: string, text: string): string {
  const extension = extensionOf(filePath);
  if (extension === '.tsv') return '\t';
  if (extension === '.psv') return '|';
  return guessDelimiter(text.slice(0, GUESS_SAMPLE));
}

function tooLargeNotice(links: RepoLinks | null, filePath: string): string {
  const raw = links?.refPath && filePath ? `${links.base}/raw/${links.refPath}/${filePath.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}` : null;
  const link = raw ? ` <a href="${escapeField(raw)}">View Raw</a>` : '';
  return `<table class="data-table"><tr><td>The file is too large to be shown.${link}</td></tr></table>`;
}

/**
 * Renders delimited text as `<table class="data-table">`. Records that fail to parse, or whose field
 * count differs from the first record's, are skipped as Gitea skips them. Past `CSV_MAX_ROWS` rows
 * or `CSV_MAX_CHARACTERS` characters the table stops and a notice follows it.
 */
export function renderCsv(text: string, filePath: string, links: RepoLinks | null): string {
  const truncated = text.length > CSV_MAX_CHARACTERS;
  const input = truncated ? text.slice(0, CSV_MAX_CHARACTERS) : text;
  const comma = delimiterFor(filePath, input);
  const parts: string[] = ['<table class="data-table">'];
  let rows = 0;
  readCsvRecords(input, { comma, trimLeadingSpace: comma !== '\t' && comma !== ' ' }, (record) => {
    if (rows >= CSV_MAX_ROWS) return false;
    if (record.error) return true;
    const cell = rows === 0 ? 'th' : 'td';
    let row = `<tr><${cell} class="line-num">${rows + 1}</${cell}>`;
    for (const field of record.fields) row += `<${cell}>${escapeField(field)}</${cell}>`;
    parts.push(row + '</tr>');
    rows++;
    return true;
  });
  parts.push('</table>');
  if (truncated || rows >= CSV_MAX_ROWS) parts.push(tooLargeNotice(links, filePath));
  return parts.join('');
}
