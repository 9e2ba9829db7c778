// Parses a document a slice of top-level blocks at a time, so that a large document never holds all of
// its tokens at once. markdown-it's `parse` builds every block token first and every inline token after
// (about 135,000 tokens, 50-60 MiB of heap, for a 500 KB document), and a pool thread's heap grows to
// several times that live set. Here the block parser hands over its finished top-level blocks every
// `SLICE_TOKENS` tokens; each slice gets the core rules that follow the block parse (inline parsing,
// task lists, heading ids, references, links) and is handed to the caller before the next is parsed.
import type MarkdownIt from 'markdown-it';
import type { StateBlock, StateCore, Token } from 'markdown-it';

/** Block tokens per slice: big enough that per-slice overhead is noise, small enough to bound the heap. */
export const SLICE_TOKENS = 1024;

type CoreRule = (state: StateCore) => void;
type SliceSink = (tokens: Token[]) => void;
type SlicingEnv = { takeSlice?: (tokens: Token[]) => void };

/**
 * Runs first at the start of every block. At the top level every block before this one is complete,
 * so the tokens so far can leave: no block rule looks back past the block it is parsing (the list rule
 * marks tight paragraphs from its own first token on). Nested blocks (quotes, list items) have level > 0.
 */
function sliceBoundaryRule(state: StateBlock, _startLine: number, _endLine: number, silent: boolean): boolean {
  if (!silent && state.level === 0) (state.env as SlicingEnv).takeSlice?.(state.tokens);
  return false;
}

/** Thrown between slices when the caller's `shouldStop` says the result is no longer wanted. */
export class RenderStopped extends Error {
  constructor() {
    super('the render was stopped: its client left');
  }
}

export type SlicedParser = (text: string, env: object, sink: SliceSink, shouldStop?: () => boolean) => void;

/**
 * Installs the boundary rule on `md` and returns a parser feeding `sink` with complete top-level blocks,
 * in order, each slice already through every core rule. Rules that keep state across a document must
 * key it by `env`, the one object every slice shares. Call it after every plugin is installed.
 */
export function slicedParser(md: MarkdownIt): SlicedParser {
  // `table` is markdown-it 14's first block rule; `before` throws at start-up should that change.
  md.block.ruler.before('table', 'slice_boundary', sliceBoundaryRule);
  const blockStage: CoreRule[] = [...md.core.ruler.getRules('')];
  md.core.ruler.disable(['normalize', 'block']);
  const sliceStage: CoreRule[] = [...md.core.ruler.getRules('')];
  md.core.ruler.enable(['normalize', 'block']);
  const beforeSlices = blockStage.filter((rule) => !sliceStage.includes(rule));

  return (text, env, sink, shouldStop) => {
    const document = new md.core.State(text, md, env);
    const finishSlice = (blocks: Token[]) => {
      if (shouldStop?.()) throw new RenderStopped();
      const slice = new md.core.State(document.src, md, env);
      slice.tokens = blocks;
      for (const rule of sliceStage) rule(slice);
      sink(slice.tokens);
    };
    // Reference definitions may follow their uses: a first pass that keeps no tokens collects them.
    if (text.includes(']:')) {
      runBlockParse(beforeSlices, new md.core.State(text, md, env), (tokens) => { tokens.length = 0; });
    }
    runBlockParse(beforeSlices, document, (tokens) => {
      if (tokens.length >= SLICE_TOKENS) finishSlice(tokens.splice(0));
    });
    if (document.tokens.length > 0) finishSlice(document.tokens);
  };
}

function runBlockParse(rules: CoreRule[], state: StateCore, takeSlice: (tokens: Token[]) => void): void {
  const env = state.env as SlicingEnv;
  env.takeSlice = takeSlice;
  try {
    for (const rule of rules) rule(state);
  } finally {
    delete env.takeSlice;
  }
}

