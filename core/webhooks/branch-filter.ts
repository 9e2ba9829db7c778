// A hook's branch_filter, in Gitea's glob syntax (modules/glob, compiled to a regular expression):
// `*` and `**` any run of characters, `?` one, `[abc]`/`[!abc]` classes, `{a,b}` alternatives, `\`
// escapes. A push, create or delete passes when the glob matches the branch name or the full ref.

export class GlobError extends Error {}

const REGEXP_SPECIALS = new Set(['.', '+', '^', '$', '(', ')', '|']);
const escapeLiteral = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

class GlobCompiler {
  private pos = 0;
  constructor(private readonly chars: string[]) {}

  private charClass(): string {
    let out = '';
    if (this.chars[this.pos] === '!') {
      this.pos++;
      out += '^';
    }
    while (this.pos < this.chars.length) {
      const c = this.chars[this.pos++]!;
      if (c === ']') return `[${out}]`;
      if (c === '\\') {
        if (this.pos >= this.chars.length) throw new GlobError('unterminated character class escape');
        out += `\\${this.chars[this.pos++]}`;
      } else {
        out += c;
      }
    }
    throw new GlobError('unterminated character class');
  }

  compile(inBraces: boolean): string {
    let out = '';
    while (this.pos < this.chars.length) {
      const c = this.chars[this.pos++]!;
      if (inBraces && c === '}') return `(${out})`;
      if (c === '*') {
        if (this.chars[this.pos] === '*') this.pos++;
        // Branch filters are compiled without separators: one star crosses slashes too.
        out += '.*';
      } else if (c === '?') {
        out += '.';
      } else if (c === '[') {
        out += this.charClass();
      } else if (c === '{') {
        out += this.compile(true);
      } else if (c === ',') {
        out += inBraces ? '|' : ',';
      } else if (c === '\\') {
        if (this.pos >= this.chars.length) throw new GlobError('no character to escape');
        out += escapeLiteral(this.chars[this.pos++]!);
      } else if (REGEXP_SPECIALS.has(c)) {
        out += `\\${c}`;
      } else {
        out += escapeLiteral(c);
      }
    }
    return out;
  }
}

/** The glob as a regular expression; GlobError with Gitea's words when it is not a valid glob. */
export function compileGlob(pattern: string): RegExp {
  const body = new GlobCompiler([...pattern]).compile(false);
  try {
    return new RegExp(`^${body}$`);
  } catch (err) {
    throw new GlobError(`failed to compile regexp: ${(err as Error).message}`);
  }
}

/** Gitea's checkBranchFilter: empty, `*` and `**` pass everything; an invalid glob passes nothing. */
export function branchFilterPasses(filter: string, fullRef: string): boolean {
  if (filter === '' || filter === '*' || filter === '**') return true;
  let glob: RegExp;
  try {
    glob = compileGlob(filter);
  } catch {
    return false;
  }
  if (fullRef.startsWith('refs/heads/') && glob.test(fullRef.slice('refs/heads/'.length))) return true;
  return glob.test(fullRef);
}
