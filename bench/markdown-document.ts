// The document the markdown benchmarks render: headings, emphasis, links, task lists, tables and code,
// repeated to the size asked for.
export function markdownDocument(bytes: number): string {
  const block = [
    '## Section heading with `code`',
    '',
    'Some **bold** and _emphasis_ text with a [link](https://example.com/page) and https://example.org autolink, ~~strike~~.',
    '',
    '- [x] done item',
    '- [ ] open item with @nobody mention',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '```js',
    'const x = 1 + 2;',
    '```',
    '',
  ].join('\n');
  return block.repeat(Math.ceil(bytes / block.length)).slice(0, bytes);
}

/** A render request for `text` as the benchmarks' bare loops send it: gfm, no context, no references. */
export function benchRenderRequest(text: string) {
  return { kind: 'markdown' as const, mode: 'gfm', text, context: '', wiki: false, filePath: '', appUrl: 'http://localhost/', mentionable: [], issues: {} };
}
