// git writes path names that contain special characters as C-style quoted strings ("a\tb",
// "\303\251" for non-ASCII when core.quotePath is on). Pure helpers, no Node APIs, safe in workers.

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

const utf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/**
 * Reads a quoted string starting at `start` (which must be '"'). Returns the decoded value and the
 * index just after the closing quote, or null when the text is not a well-formed quoted string.
 */
export function readQuoted(text: string, start: number): { value: string; end: number } | null {
  if (text[start] !== '"') return null;
  const bytes: number[] = [];
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { value: utf8.decode(new Uint8Array(bytes)), end: i + 1 };
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) return null;
      if (next >= '0' && next <= '7') {
        const oct = text.slice(i + 1, i + 4);
        if (!/^[0-7]{3}$/.test(oct)) return null;
        bytes.push(parseInt(oct, 8) & 0xff);
        i += 4;
        continue;
      }
      const code = ESCAPES[next];
      if (code === undefined) return null;
      bytes.push(code);
      i += 2;
      continue;
    }
    // Unescaped characters are taken as they are (already decoded text, possibly non-ASCII).
    const char = String.fromCodePoint(text.codePointAt(i)!);
    for (const b of utf8Encoder.encode(char)) bytes.push(b);
    i += char.length;
  }
  return null;
}

/** A path as written after "rename from " and similar: quoted, or taken literally. */
export function unquotePath(text: string): string {
  if (text.startsWith('"')) {
    const q = readQuoted(text, 0);
    if (q && q.end === text.length) return q.value;
  }
  return text;
}
