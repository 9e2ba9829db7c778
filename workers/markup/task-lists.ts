// GitHub task lists: `- [ ] todo` and `- [x] done` become disabled checkboxes, marked up as Gitea does.
import type MarkdownIt from 'markdown-it';
import type { RendererRule, StateCore, Token } from 'markdown-it';
import type { RenderEnv } from './markdown-env.js';

/** `[ ]`, `[x]` or `[X]` at the start of a list item, and the blanks after it. */
const TASK_MARKER = /^\[([ \txX])\][ \t]*/;

/**
 * Byte offsets into the text as the client sent it. Gitea reports a checkbox's position in UTF-8
 * bytes of the original source, while markdown-it works on a copy whose `\r\n` became `\n`.
 * Checkboxes are met in source order, so one forward walk serves them all.
 */
class SourceByteOffsets {
  private original = 0;
  private normalised = 0;
  private bytes = 0;

  constructor(private readonly text: string) {}

  at(normalisedIndex: number): number {
    if (normalisedIndex < this.normalised) this.original = this.normalised = this.bytes = 0;
    const text = this.text;
    while (this.normalised < normalisedIndex && this.original < text.length) {
      const code = text.charCodeAt(this.original);
      if (code === 13 && text.charCodeAt(this.original + 1) === 10) {
        this.bytes += 2;
        this.original += 2;
      } else {
        // A surrogate pair is one 4-byte character: count it on its first half.
        this.bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xdc00 && code <= 0xdfff ? 0 : code >= 0xd800 && code <= 0xdbff ? 4 : 3;
        this.original += 1;
      }
      this.normalised += 1;
    }
    return this.bytes;
  }
}

/** Start offset of every line of the normalised source, computed on first use. */
function lineStarts(src: string): number[] {
  const starts = [0];
  for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Line starts and byte offsets of one document, made on its first checkbox and kept for the slices of
 * blocks after it (block-chunks.ts), which all share `env` and the source.
 */
type SourcePositions = { starts: number[]; offsets: SourceByteOffsets };
const positionsByDocument = new WeakMap<object, SourcePositions>();

function sourcePositions(state: StateCore): SourcePositions {
  let positions = positionsByDocument.get(state.env);
  if (!positions) {
    positions = { starts: lineStarts(state.src), offsets: new SourceByteOffsets((state.env as RenderEnv).originalText) };
    positionsByDocument.set(state.env, positions);
  }
  return positions;
}

function taskListRule(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i]!;
    if (inline.type !== 'inline' || tokens[i - 1]!.type !== 'paragraph_open' || tokens[i - 2]!.type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    if (!first || first.type !== 'text' || !inline.map) continue;
    const marker = TASK_MARKER.exec(first.content);
    if (!marker) continue;

    const { starts, offsets } = sourcePositions(state);
    const bracket = state.src.indexOf('[', starts[inline.map[0]] ?? 0);
    const position = offsets.at(bracket < 0 ? 0 : bracket);
    const checked = marker[1] === 'x' || marker[1] === 'X';

    first.content = first.content.slice(marker[0].length);
    const item = tokens[i - 2]!;
    item.attrJoin('class', 'task-list-item');
    const checkbox: Array<[string, string]> = [['type', 'checkbox'], ['disabled', ''], ['data-source-position', String(position)]];
    if (checked) checkbox.push(['checked', '']);
    item.meta = { ...item.meta, taskCheckbox: checkbox };
  }
}

/**
 * The checkbox opens the list item, before its first paragraph: glued to the text in a tight list,
 * on its own line before `<p>` in a loose one, as Gitea writes it.
 */
const renderListItemOpen: RendererRule = (tokens, idx, options, _env, self) => {
  const item = tokens[idx]!;
  const checkbox = item.meta?.taskCheckbox as Array<[string, string]> | undefined;
  if (!checkbox) return self.renderToken(tokens, idx, options);
  const tight = tokens[idx + 1]?.type === 'paragraph_open' && tokens[idx + 1]!.hidden;
  return `<li${self.renderAttrs(item)}><input${self.renderAttrs({ tag: 'input', attrs: checkbox } as Token)} />${tight ? '' : '\n'}`;
};

export function taskListsPlugin(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'task_lists', taskListRule);
  md.renderer.rules.list_item_open = renderListItemOpen;
}
