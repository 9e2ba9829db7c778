// The frame of every web page: escaping, a small inline stylesheet, the header with sign-out.
// Every interpolated value goes through escapeHtml; pages build strings, no template engine.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]!);
}

/** A hidden input; name and value escaped. */
export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

export interface LayoutOptions {
  title: string;
  /** The signed-in user's name, for the header. */
  userName?: string | null;
  /** CSRF token for the sign-out form in the header. */
  csrf?: string;
  /** Shown in an alert region above the content. */
  error?: string | null;
  notice?: string | null;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --bad: #b42318; --ok: #116329; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #30363d; --accent: #58a6ff; --bad: #ff7b72; --ok: #3fb950; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; justify-content: space-between; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header a { color: inherit; font-weight: 600; text-decoration: none; }
main { max-width: 46rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .75rem 0; }
fieldset label { display: inline; font-weight: normal; margin: 0 1rem 0 .25rem; }
input[type=text], input[type=password] { width: 100%; padding: .5rem; font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; }
button { font: inherit; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: transparent; color: var(--bad); border-color: var(--bad); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
table { width: 100%; border-collapse: collapse; } th, td { text-align: left; padding: .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.alert { padding: .75rem 1rem; border-radius: 6px; border: 1px solid var(--bad); color: var(--bad); }
.notice { padding: .75rem 1rem; border-radius: 6px; border: 1px solid var(--ok); }
code.secret { display: block; padding: .5rem; font-size: 1.05rem; word-break: break-all; border: 1px dashed var(--line); }
.muted { color: var(--muted); } form.inline { display: inline; }
`;

export function layout(options: LayoutOptions, content: string): string {
  const signOut = options.userName
    ? `<form class="inline" method="post" action="/user/logout">${hidden('_csrf', options.csrf ?? '')}<span class="muted">Signed in as ${escapeHtml(options.userName)}</span> <button type="submit" class="secondary">Sign out</button></form>`
    : '';
  const error = options.error ? `<p class="alert" role="alert">${escapeHtml(options.error)}</p>` : '';
  const notice = options.notice ? `<p class="notice" role="status">${escapeHtml(options.notice)}</p>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · pullhost</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/user/settings/applications">pullhost</a>${signOut}</header>
<main>
<h1>${escapeHtml(options.title)}</h1>
${error}${notice}${content}
</main>
</body>
</html>`;
}

export function errorPage(title: string, message: string, options: Omit<LayoutOptions, 'title' | 'error'> = {}): string {
  return layout({ ...options, title, error: message }, '<p><a href="/user/settings/applications">Back to the settings</a></p>');
}
