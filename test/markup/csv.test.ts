// CSV reading (Go encoding/csv semantics), delimiter guessing and the size caps.
import t from 'tap';
import { CSV_MAX_CHARACTERS, CSV_MAX_ROWS, renderCsv } from '../../workers/markup/csv.js';
import { type CsvRecord, readCsvRecords } from '../../workers/markup/csv-reader.js';
import { repoLinksFor } from '../../workers/markup/context.js';
import { APP_URL } from './helpers.js';

function records(text: string, comma = ',', trimLeadingSpace = true): CsvRecord[] {
  const all: CsvRecord[] = [];
  readCsvRecords(text, { comma, trimLeadingSpace }, (record) => {
    all.push(record);
    return true;
  });
  return all;
}

t.test('reader: quoting, line endings, blank lines, leading spaces', async (t) => {
  t.same(records('a,b\r\n\r\n"x, y",  "q""uote"\n'), [
    { fields: ['a', 'b'], error: null },
    { fields: ['x, y', 'q"uote'], error: null },
  ]);
  t.same(records('"multi\r\nline",2\n'), [{ fields: ['multi\nline', '2'], error: null }]);
  t.same(records('a, b', ',', false), [{ fields: ['a', ' b'], error: null }]);
  t.same(records('a,b\n,\n'), [{ fields: ['a', 'b'], error: null }, { fields: ['', ''], error: null }]);
});

t.test('reader: errors as Go reports them', async (t) => {
  t.same(records('a,b\nx"y,1\n"open,2').map((record) => record.error), [null, 'bare-quote', 'quote']);
  t.equal(records('"a"b,c')[0]!.error, 'quote', 'text after a closing quote');
  t.equal(records('a,b\n1,2,3')[1]!.error, 'field-count');
});

t.test('delimiter: by extension, then guessed', async (t) => {
  const header = (html: string) => /<tr>(.*?)<\/tr>/.exec(html)![1];
  t.equal(header(renderCsv('a|b', 'x.psv', null)), '<th class="line-num">1</th><th>a</th><th>b</th>');
  t.equal(header(renderCsv('a;b;c\n1;2;3', 'x.csv', null)), '<th class="line-num">1</th><th>a</th><th>b</th><th>c</th>');
  t.equal(header(renderCsv('a@b\n1@2', 'x.csv', null)), '<th class="line-num">1</th><th>a</th><th>b</th>');
  t.equal(header(renderCsv('"a;b";c', 'x.csv', null)), '<th class="line-num">1</th><th>a;b</th><th>c</th>', 'delimiter next to a quoted value');
});

t.test('rows past the cap are not shown and a notice follows', async (t) => {
  const html = renderCsv('n\n'.repeat(CSV_MAX_ROWS + 10), 'big.csv', repoLinksFor('/o/r/src/branch/main', APP_URL, 'big.csv'));
  t.equal(html.split('<tr>').length - 2, CSV_MAX_ROWS, 'table rows plus the notice row');
  t.match(html, /<table class="data-table"><tr><td>The file is too large to be shown\. <a href="http:\/\/localhost:3000\/o\/r\/raw\/branch\/main\/big\.csv">View Raw<\/a><\/td><\/tr><\/table>$/);
});

t.test('text past the size cap is not read', async (t) => {
  const html = renderCsv('x'.repeat(CSV_MAX_CHARACTERS + 5), 'huge.csv', null);
  t.match(html, /The file is too large to be shown\.<\/td>/);
  t.notMatch(html, /View Raw/, 'no link without a ref to point at');
});
