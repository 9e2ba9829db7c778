// Gitea's checks of account fields that admins and owners edit, with the texts Gitea answers
// (models/user/email_address.go validateEmailBasic, modules/validation ValidUrl).
import { isValidEmail } from './auth/usernames.js';

// The characters Gitea lets an address have: anything else is "unsupported", not "invalid".
const EMAIL_CHARACTERS = /^[a-zA-Z0-9.!#$%&'*+,\-/=?^_`{|}~]*@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

// The binding's own e-mail rule (unanchored, as it is there): an address that does not even look
// like one is refused by the binding ("[Email]: Email") before the account rules see it.
const EMAIL_SHAPE = /[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*@(?:\w(?:[\w-]*\w)?\.)+[a-zA-Z0-9](?:[\w-]*\w)?/;

export function looksLikeEmail(value: string): boolean {
  return EMAIL_SHAPE.test(value);
}

/** Why Gitea refuses the address, in its words, or null. */
export function emailProblem(email: string): string | null {
  if (email === '') return `e-mail invalid [email: ${email}]`;
  if (!EMAIL_CHARACTERS.test(email)) return `e-mail address contains unsupported character [email: ${email}]`;
  if (!isValidEmail(email)) return `e-mail invalid [email: ${email}]`;
  return null;
}

/** Gitea's ValidUrl: empty, or an absolute http(s) URL with a usable port. */
export function isValidWebsite(value: string): boolean {
  if (value === '') return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
}

/** Gitea's `In(,public,limited,private)`. */
export function isVisibility(value: string): value is '' | 'public' | 'limited' | 'private' {
  return value === '' || value === 'public' || value === 'limited' || value === 'private';
}
