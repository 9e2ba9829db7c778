// A CSV record reader with the semantics of Go's encoding/csv, which Gitea's CSV renderer uses:
// RFC 4180 quoting, `\r\n` read as `\n`, blank lines skipped, a stray quote is an error, and every
// record must have as many fields as the first good one.

export type CsvRecord = { fields: string[]; error: 'bare-quote' | 'quote' | 'field-count' | null };

export type CsvOptions = { comma: string; trimLeadingSpace: boolean };

/** Reads records from `text` in order; `visit` returns false to stop early. Linear in `text`. */
export function readCsvRecords(text: string, options: CsvOptions, visit: (record: CsvRecord) => boolean): void {
  const { comma, trimLeadingSpace } = options;
  let pos = 0;
  let expectedFields = 0;
  const length = text.length;

  /** The next physical line including its `\n` (normalised from `\r\n`), or null at the end. */
  const nextLine = (): string | null => {
    if (pos >= length) return null;
    const newline = text.indexOf('\n', pos);
    let line = newline < 0 ? text.slice(pos) : text.slice(pos, newline + 1);
    pos = newline < 0 ? length : newline + 1;
    if (line.endsWith('\r\n')) line = line.slice(0, -2) + '\n';
    else if (newline < 0 && line.endsWith('\r')) line = line.slice(0, -1);
    return line;
  };
  const isEndOfLine = (line: string, at: number) => at >= line.length || (line[at] === '\n' && at === line.length - 1);

  for (;;) {
    let line = nextLine();
    while (line !== null && (line === '\n' || line === '')) line = nextLine();
    if (line === null) return;

    const fields: string[] = [];
    let error: CsvRecord['error'] = null;
    let at = 0;
    fieldLoop: for (;;) {
      if (trimLeadingSpace) while (at < line.length && /\s/.test(line[at]!)) at++;
      if (at >= line.length || line[at] !== '"') {
        const next = line.indexOf(comma, at);
        let field = next < 0 ? line.slice(at) : line.slice(at, next);
        if (next < 0 && field.endsWith('\n')) field = field.slice(0, -1);
        if (field.includes('"')) { error = 'bare-quote'; break; }
        fields.push(field);
        if (next < 0) break;
        at = next + comma.length;
        continue;
      }
      // Quoted field: may run over several lines; `""` is a quote.
      at++;
      let field = '';
      for (;;) {
        const quote = line.indexOf('"', at);
        if (quote >= 0) {
          field += line.slice(at, quote);
          at = quote + 1;
          if (line[at] === '"') { field += '"'; at++; continue; }
          if (line.startsWith(comma, at)) { fields.push(field); at += comma.length; continue fieldLoop; }
          if (isEndOfLine(line, at)) { fields.push(field); break fieldLoop; }
          error = 'quote';
          break fieldLoop;
        }
        field += line.slice(at);
        const more = nextLine();
        if (more === null) { error = 'quote'; break fieldLoop; }
        line = more;
        at = 0;
      }
    }

    if (!error) {
      if (expectedFields === 0) expectedFields = fields.length;
      else if (fields.length !== expectedFields) error = 'field-count';
    }
    if (!visit({ fields, error })) return;
  }
}
