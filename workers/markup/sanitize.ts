// The HTML allowlist every rendered document passes through, modelled on Gitea's policy
// (bluemonday's UGC policy plus Gitea's additions), and the final serialisation Gitea clients see.
import sanitizeHtml from 'sanitize-html';

/** Elements Gitea allows with its "generally safe" attributes, plus the UGC policy's own. */
const GENERAL_ELEMENTS = [
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'br', 'b', 'center', 'i', 'strong', 'em', 'a', 'pre', 'code', 'img', 'tt',
  'div', 'ins', 'del', 'sup', 'sub', 'p', 'ol', 'ul', 'table', 'thead', 'tbody', 'tfoot', 'blockquote', 'label',
  'dl', 'dt', 'dd', 'kbd', 'q', 'samp', 'var', 'hr', 'ruby', 'rt', 'rp', 'li', 'tr', 'td', 'th', 's', 'strike', 'summary',
  'details', 'caption', 'figure', 'figcaption', 'abbr', 'bdo', 'cite', 'dfn', 'mark', 'small', 'span', 'time', 'video', 'wbr',
  'picture', 'source',
];
const UGC_ELEMENTS = ['article', 'aside', 'section', 'hgroup', 'address', 'u', 'acronym', 'bdi', 'col', 'colgroup'];

const GENERAL_ATTRIBUTES = [
  'abbr', 'accept', 'accept-charset', 'accesskey', 'action', 'align', 'alt', 'aria-describedby', 'aria-hidden',
  'aria-label', 'aria-labelledby', 'axis', 'border', 'cellpadding', 'cellspacing', 'char', 'charoff', 'charset',
  'checked', 'clear', 'cols', 'colspan', 'color', 'compact', 'coords', 'datetime', 'dir', 'disabled', 'enctype', 'for',
  'frame', 'headers', 'height', 'hreflang', 'hspace', 'ismap', 'label', 'lang', 'maxlength', 'media', 'method',
  'multiple', 'name', 'nohref', 'noshade', 'nowrap', 'open', 'prompt', 'readonly', 'rel', 'rev', 'rows', 'rowspan',
  'rules', 'scope', 'selected', 'shape', 'size', 'span', 'start', 'summary', 'tabindex', 'target', 'title', 'type',
  'usemap', 'valign', 'value', 'vspace', 'width', 'itemprop', 'itemscope', 'itemtype',
];

/** Attributes each element may keep (`*`: every element); the task-list checkbox's `type` is checked apart. */
const ELEMENT_ATTRIBUTES: Record<string, string[]> = {
  '*': ['id', 'title', 'dir', 'lang'],
  a: ['href'],
  img: ['src', 'loading'],
  blockquote: ['cite'],
  q: ['cite'],
  del: ['cite'],
  ins: ['cite'],
  ol: ['reversed'],
  col: ['span', 'width'],
  colgroup: ['span', 'width'],
  input: ['type', 'checked', 'disabled', 'data-source-position'],
  svg: ['viewbox', 'width', 'height', 'aria-hidden'],
  path: ['fill-rule', 'd'],
  span: ['data-line-number', 'style'],
  video: ['src', 'autoplay', 'controls', 'muted', 'loop', 'playsinline'],
  source: ['srcset'],
  div: ['style'], p: ['style'], tr: ['style'], th: ['style'], td: ['style'],
};
for (const element of GENERAL_ELEMENTS) {
  ELEMENT_ATTRIBUTES[element] = [...(ELEMENT_ATTRIBUTES[element] ?? []), ...GENERAL_ATTRIBUTES];
}

const ALLOWED_CLASSES: Record<string, Array<string | RegExp>> = {
  code: [/^language-\S+$/],
  a: ['ref-issue', 'ref-external-issue', 'mention'],
  li: ['task-list-item', 'unchecked', 'checked', 'indeterminate'],
  span: [/^\w{1,2}$/, 'emoji', 'color-preview'],
  table: ['data-table'],
  th: ['line-num'],
  td: ['line-num'],
};

/**
 * The attribute allowlist as sets. sanitize-html would rebuild its own copy of an `allowedAttributes`
 * option this size (about 5,000 entries) on every call, which cost 0.2 ms per document before any
 * parsing, and then search it linearly for every attribute; so the option is off and
 * `transformAnyTag` applies this one. Elements with allowed classes may carry `class`, as
 * sanitize-html implies; sanitize-html still filters the class names themselves.
 */
const ALLOWED_ATTRIBUTES = new Map<string, ReadonlySet<string>>(
  [...new Set([...Object.keys(ELEMENT_ATTRIBUTES), ...Object.keys(ALLOWED_CLASSES)])].map((element) => [
    element,
    new Set([...(ELEMENT_ATTRIBUTES[element] ?? []), ...(element in ALLOWED_CLASSES ? ['class'] : [])]),
  ]),
);
const ATTRIBUTES_OF_EVERY_ELEMENT = ALLOWED_ATTRIBUTES.get('*')!;

function dropDisallowedAttributes(tagName: string, attribs: sanitizeHtml.Attributes): void {
  const own = ALLOWED_ATTRIBUTES.get(tagName);
  for (const name in attribs) {
    if (!ATTRIBUTES_OF_EVERY_ELEMENT.has(name) && !own?.has(name)) delete attribs[name];
  }
}

const COLOUR = [/^#[0-9a-f]{3,8}$/i, /^[a-z]{3,30}$/i, /^(rgb|hsl)a?\(\s*[\d.%\s,/deg-]{1,60}\)$/i];
const colourStyles = { color: COLOUR, 'background-color': COLOUR };

/**
 * Schemes a link or image may use. Gitea allows every scheme but javascript, vbscript and data; an
 * allowlist is stricter (unknown application schemes lose their link) and cannot be bypassed by a
 * scheme spelling nobody thought of.
 */
export const ALLOWED_SCHEMES = [
  'http', 'https', 'ftp', 'ftps', 'sftp', 'mailto', 'tel', 'sms', 'irc', 'ircs', 'news', 'nntp', 'xmpp', 'git', 'ssh',
  'svn', 'magnet', 'matrix', 'geo', 'webcal', 'feed',
];
const URL_ATTRIBUTES = ['href', 'src', 'cite', 'action', 'srcset', 'itemtype', 'longdesc', 'usemap', 'poster', 'background'];

/** The scheme as a browser reads it, after it has skipped control characters and whitespace. */
function hasForbiddenScheme(url: string): boolean {
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]/g, '').toLowerCase();
  return /^(javascript|vbscript|data|livescript|mocha):/.test(compact);
}

/** `srcset` lists several URLs: any forbidden one condemns the attribute. */
function hasForbiddenUrl(attribute: string, value: string): boolean {
  return attribute === 'srcset' ? value.split(',').some(hasForbiddenScheme) : hasForbiddenScheme(value);
}

/** Heading slugs keep letters of any script; quotes, spaces and markup never reach an id. */
const SAFE_ID = /^[\p{L}\p{N}:_.-]+$/u;
const ID_PREFIX = 'user-content-';

/**
 * Runs on every opening tag: applies the attribute allowlist, drops dangerous URLs, keeps ids and names of user
 * HTML out of the page's own namespace (Gitea prefixes ids the same way), adds `rel` to links as
 * bluemonday does.
 */
function transformAnyTag(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  dropDisallowedAttributes(tagName, attribs);
  for (const name of URL_ATTRIBUTES) {
    const value = attribs[name];
    if (value !== undefined && hasForbiddenUrl(name, value)) delete attribs[name];
  }
  for (const name of ['id', 'name']) {
    const value = attribs[name];
    if (value === undefined) continue;
    if (!SAFE_ID.test(value)) delete attribs[name];
    else if (!value.startsWith(ID_PREFIX)) attribs[name] = ID_PREFIX + value;
  }
  if (tagName === 'a' && attribs.href !== undefined) {
    const rel = new Set((attribs.rel ?? '').split(/\s+/).filter(Boolean));
    rel.add('nofollow');
    if ((attribs.target ?? '').toLowerCase() === '_blank') rel.add('noopener');
    attribs.rel = [...rel].join(' ');
  }
  return { tagName, attribs };
}

const ALLOWED_EMPTY_ATTRIBUTES = [
  'alt', 'checked', 'disabled', 'open', 'selected', 'multiple', 'readonly', 'ismap', 'nohref', 'noshade', 'nowrap',
  'compact', 'itemscope', 'autoplay', 'controls', 'muted', 'loop', 'playsinline', 'reversed',
];
const SCHEME_CHECKED_ATTRIBUTES = [...new Set([...(sanitizeHtml.defaults.allowedSchemesAppliedToAttributes ?? []), ...URL_ATTRIBUTES])];

// The same rules as SANITIZE_OPTIONS, as sets, for the attributes markdown-it writes (see
// trustedAttributes); test/markup/trusted-output.test.ts checks both give the same answers.
const EMPTY_VALUE_ALLOWED = new Set(ALLOWED_EMPTY_ATTRIBUTES);
const NEEDS_A_VALUE = new Set(sanitizeHtml.defaults.nonBooleanAttributes);
const SCHEME_CHECKED = new Set(SCHEME_CHECKED_ATTRIBUTES);
const VALID_ATTRIBUTE_NAME = /^[^\0\t\n\f\r /<=>]+$/;

/**
 * The scheme check sanitize-html applies to URL attributes (launder's `naughtyHref`): a scheme
 * outside ALLOWED_SCHEMES, once ASCII control characters, spaces and HTML comments are removed.
 * Relative and protocol-relative URLs pass.
 */
function hasDisallowedScheme(url: string): boolean {
  // eslint-disable-next-line no-control-regex
  let href = url.replace(/[\x00-\x20]+/g, '');
  for (let open = href.indexOf('<!--'); open >= 0; open = href.indexOf('<!--')) {
    const close = href.indexOf('-->', open + 4);
    if (close < 0) break;
    href = href.slice(0, open) + href.slice(close + 3);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9.\-+]*):/.exec(href)?.[1];
  return scheme !== undefined && !ALLOWED_SCHEMES.includes(scheme.toLowerCase());
}

/** The class names sanitize-html keeps (only elements listed in ALLOWED_CLASSES get here). */
function allowedClassNames(tagName: string, value: string): string {
  const allowed = ALLOWED_CLASSES[tagName] ?? [];
  return value
    .split(/\s+/)
    .filter((name) => allowed.some((rule) => (typeof rule === 'string' ? rule === name : rule.test(name))))
    .join(' ');
}

/** Attribute values as sanitize-html escapes them, with the quotes Gitea writes (see serialiseLikeGitea). */
function escapeAttributeValue(value: string): string {
  if (!/[&<>"']/.test(value)) return value;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

/**
 * The attributes of an element markdown-it writes itself, as the sanitiser would leave them, ready to
 * follow the tag name; null when the sanitiser would drop the element's tags (a link left with no
 * attributes, any form control but a checkbox). The same allowlist, URL scheme checks, id prefixes
 * and `rel` as sanitize-html with SANITIZE_OPTIONS, without parsing HTML: markdown-it's own elements
 * skip the sanitiser (see trusted-blocks.ts). `srcset` and `style` would need sanitize-html's
 * parsers; markdown-it writes neither, so they are dropped.
 */
export function trustedAttributes(tagName: string, attrs: ReadonlyArray<readonly [string, string]>): string | null {
  const attribs: sanitizeHtml.Attributes = Object.create(null) as sanitizeHtml.Attributes;
  // An HTML parser keeps the first of repeated attributes. markdown-it writes `<ol start>` as a number.
  for (const [name, value] of attrs) if (!(name in attribs)) attribs[name] = String(value);
  transformAnyTag(tagName, attribs);
  if (tagName === 'input' && attribs.type !== 'checkbox') return null;
  let rendered = '';
  for (const name in attribs) {
    let value = attribs[name]!;
    if (!VALID_ATTRIBUTE_NAME.test(name) || name === 'srcset' || name === 'style') continue;
    if (value === '' && !EMPTY_VALUE_ALLOWED.has(name) && NEEDS_A_VALUE.has(name)) continue;
    if (SCHEME_CHECKED.has(name) && hasDisallowedScheme(value)) continue;
    if (name === 'class' && (value = allowedClassNames(tagName, value)) === '') continue;
    rendered += ` ${name}${value !== '' ? `="${escapeAttributeValue(value)}"` : EMPTY_VALUE_ALLOWED.has(name) ? '=""' : ''}`;
  }
  return tagName === 'a' && rendered === '' ? null : rendered;
}

/**
 * sanitize-html asks `allowedTags.indexOf(name)` for every tag and text node; on an 80-entry list
 * that linear search was a fifth of the sanitising time of large documents. Same answers, from a map.
 */
function withConstantTimeLookup(names: string[]): string[] {
  const positions = new Map(names.map((name, index) => [name, index]));
  Object.defineProperty(names, 'indexOf', { value: (name: string) => positions.get(name) ?? -1 });
  return names;
}

// `allowedEmptyAttributes` is supported by sanitize-html but missing from its type definitions.
const SANITIZE_OPTIONS: sanitizeHtml.IOptions & { allowedEmptyAttributes: string[] } = {
  allowedTags: withConstantTimeLookup([...GENERAL_ELEMENTS, ...UGC_ELEMENTS, 'input', 'svg', 'path']),
  // Applied by transformAnyTag instead (see ALLOWED_ATTRIBUTES); `false` here means "all", not "none".
  allowedAttributes: false,
  allowedClasses: ALLOWED_CLASSES,
  allowedStyles: { div: colourStyles, span: colourStyles, p: colourStyles, tr: colourStyles, th: colourStyles, td: colourStyles },
  allowedSchemes: ALLOWED_SCHEMES,
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: SCHEME_CHECKED_ATTRIBUTES,
  allowProtocolRelative: true,
  allowedEmptyAttributes: ALLOWED_EMPTY_ATTRIBUTES,
  selfClosing: ['img', 'br', 'hr', 'input', 'col', 'source', 'wbr'],
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'xmp', 'noscript', 'noembed', 'noframes', 'iframe', 'template', 'title', 'plaintext', 'math', 'select'],
  nestingLimit: 256,
  transformTags: { '*': transformAnyTag },
  exclusiveFilter: (frame) => {
    // Task-list checkboxes are the only form control a document may carry.
    if (frame.tag === 'input') return frame.attribs.type !== 'checkbox';
    // bluemonday drops a link left with no attributes at all but keeps its text.
    return frame.tag === 'a' && Object.keys(frame.attribs).length === 0 ? 'excludeTag' : false;
  },
  // Go's HTML escaper writes a double quote in text as `&#34;`; see serialiseLikeGitea.
  textFilter: (text) => text.replace(/"/g, '&#34;'),
};

/**
 * sanitize-html writes `<br />`, `&quot;` and a bare `'`; Gitea (Go's HTML writer) writes `<br/>`,
 * `&#34;` and `&#39;`. Rewriting them keeps responses byte-identical to Gitea's for clients that
 * compare. Safe as plain replacements: in sanitised output ` />` only ends void tags, and quotes
 * only occur in text and attribute values.
 */
export function serialiseLikeGitea(html: string): string {
  return html.replace(/ \/>/g, '/>').replace(/&quot;/g, '&#34;').replace(/'/g, '&#39;');
}

export function sanitizeRenderedHtml(html: string): string {
  if (html === '') return '';
  return serialiseLikeGitea(sanitizeHtml(html, SANITIZE_OPTIONS));
}
