// Shared by the markup tests: complete requests from a few fields, fixture loading, and a checker
// that lists whatever a browser could execute in rendered HTML.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RenderRequest } from '../../workers/markup/types.js';

export const APP_URL = 'http://localhost:3000/';

export function request(fields: Partial<RenderRequest>): RenderRequest {
  return {
    kind: 'markup', mode: 'gfm', text: '', context: 'gogits/gogs', wiki: false, filePath: '',
    appUrl: APP_URL, mentionable: [], issues: {}, ...fields,
  };
}

/** The directory holding package.json; tests run compiled from another folder than their source. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the test file');
    dir = parent;
  }
  return dir;
}

export function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(projectRoot(), 'test', 'fixtures', 'markup', name), 'utf8')) as T;
}

const FORBIDDEN_ELEMENTS = ['script', 'iframe', 'object', 'embed', 'form', 'style', 'base', 'meta', 'link', 'frame', 'math', 'textarea', 'xmp', 'noscript', 'body', 'button', 'select', 'animate', 'set'];
const URL_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'action', 'formaction', 'cite', 'poster', 'background', 'xlink:href', 'data', 'longdesc', 'usemap', 'itemtype']);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_m, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_m, dec: string) => String.fromCodePoint(Number.parseInt(dec, 10)))
    .replace(/&colon;/gi, ':').replace(/&tab;/gi, '\t').replace(/&newline;/gi, '\n')
    .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Everything a browser could execute from this HTML, described; empty when it is clean. */
export function executableParts(html: string): string[] {
  const problems: string[] = [];
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    const name = /^<([a-zA-Z][\w:-]*)/.exec(tag)![1]!.toLowerCase();
    if (FORBIDDEN_ELEMENTS.includes(name)) problems.push(`element ${name}: ${tag}`);
    for (const attribute of tag.matchAll(/\s([^\s=/>]+)(?:="([^"]*)")?/g)) {
      const attrName = attribute[1]!.toLowerCase();
      const value = decodeEntities(attribute[2] ?? '');
      if (attrName.startsWith('on')) problems.push(`event handler ${attrName}: ${tag}`);
      if (attrName === 'style' && /url\(|expression\(|@import|javascript/i.test(value)) problems.push(`style: ${tag}`);
      if (URL_ATTRIBUTES.has(attrName)) {
        // eslint-disable-next-line no-control-regex
        for (const candidate of value.split(',').map((part) => part.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase())) {
          if (/^(javascript|vbscript|data|livescript):/.test(candidate)) problems.push(`url ${attrName}: ${tag}`);
        }
      }
    }
  }
  if (/<script/i.test(html)) problems.push('raw <script');
  return problems;
}
