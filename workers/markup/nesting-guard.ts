// Detects HTML nested so deeply that sanitising it would take quadratic time.
//
// The sanitiser's parser (htmlparser2) keeps its open elements in an array it grows from the front,
// so every opening tag costs time proportional to the current depth. markdown-it's own output is
// bounded by its nesting limit, but raw HTML written in the source (`<div>` repeated 100k times) is
// not. This scan follows the same open/close rules as that parser closely enough to give an upper
// bound of its depth, in linear time.

/** Elements the parser never pushes on its stack. */
const VOID_ELEMENTS = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'image', 'img', 'input',
  'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

const TAG = /<(\/?)([a-zA-Z][^\s/>]*)/g;

/** True when the HTML opens more than `limit` elements inside one another at some point. */
export function nestsDeeperThan(html: string, limit: number): boolean {
  const stack: string[] = [];
  const openCount = new Map<string, number>();
  TAG.lastIndex = 0;
  for (let match = TAG.exec(html); match; match = TAG.exec(html)) {
    const name = match[2]!.toLowerCase();
    if (match[1] === '') {
      if (VOID_ELEMENTS.has(name)) continue;
      stack.push(name);
      openCount.set(name, (openCount.get(name) ?? 0) + 1);
      if (stack.length > limit) return true;
    } else if ((openCount.get(name) ?? 0) > 0) {
      // A closing tag closes everything opened after its element; one the parser has not seen open
      // is ignored, exactly as it would be there.
      for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
        openCount.set(top, openCount.get(top)! - 1);
        if (top === name) break;
      }
    }
  }
  return false;
}
