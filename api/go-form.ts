// Query values read the way Gitea's handlers read them (services/context/base_form.go): FormInt64
// and FormBool never refuse a value, they take what Go's strconv accepts and treat anything else
// as zero or false. Routes that read a query value this way declare it with `formInt`/`formBool`
// (a string on the wire, so the schema layer lets every value through) and parse it here.
import Type from 'typebox';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const INT64 = /^[+-]?\d{1,19}$/;

/** A query parameter Gitea reads with FormInt64: an integer, anything else counts as 0. */
export function formInt(description: string) {
  return Type.Optional(Type.String({ maxLength: 64, description: `${description} (integer; other values count as 0, as in Gitea)` }));
}

/** A query parameter Gitea reads with FormBool: true for strconv.ParseBool's true values and "on". */
export function formBool(description: string) {
  return Type.Optional(Type.String({ maxLength: 64, description: `${description} (boolean; other values count as false, as in Gitea)` }));
}

/** Go's strconv.ParseInt(value, 10, 64), 0 when it fails. */
export function parseFormInt(value: string | undefined): number {
  if (value === undefined || !INT64.test(value)) return 0;
  const n = Number(value);
  // Beyond int64 ParseInt fails; beyond 2^53 no row id can match anyway.
  return Number.isSafeInteger(n) ? n : 0;
}

/** Gitea's FormBool. */
export function parseFormBool(value: string | undefined): boolean {
  if (value === undefined) return false;
  return TRUE.has(value) || value.toLowerCase() === 'on';
}

/** Gitea's "given and non-empty, then FormBool" (optional.Some(FormBool(...))), else undefined. */
export function parseFormOptionalBool(value: string | undefined): boolean | undefined {
  return value === undefined || value === '' ? undefined : parseFormBool(value);
}
