// Wires the decoding rule (api/decoding.ts) into Fastify for every route, present and future: the
// validator compiler decodes each request part before validating it, and the JSON body parser reads
// a body as Go's json.Decoder does (an empty or whitespace-only body is no body).
import type { FastifyInstance, FastifyRequest, FastifySchema, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { UnprocessableError } from '../../core/errors.js';
import { decodeGoJson, decodeGoPath, decodeGoQuery, firstJsonValue, pathSchemaForGo, validatorOf } from '../decoding.js';

type Schema = Record<string, unknown>;
type Validator = ((data: unknown) => boolean | { value: unknown }) & { errors?: FastifySchemaValidationError[] | null };

/** Runs an Ajv validator so that coercion of the root value is kept, answering Fastify's way. */
function answering(validate: ValidateFunction, decode: (data: unknown) => unknown): Validator {
  const fn: Validator = (data: unknown) => {
    const holder = { value: decode(data) };
    if (validate(holder.value, { parentData: holder, parentDataProperty: 'value' } as never)) return { value: holder.value };
    fn.errors = validate.errors as FastifySchemaValidationError[];
    return false;
  };
  return fn;
}

const isObjectSchema = (s: Schema) => s.type === 'object' || typeof s.properties === 'object';

/** Go decodes a missing or `null` body into the zero struct: every field not given. */
function bodyDecoder(schema: Schema): (data: unknown) => unknown {
  if (!isObjectSchema(schema)) return (data) => data;
  return (data) => (data === null || data === undefined ? {} : decodeGoJson(schema, data));
}

export const goValidatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const s = schema as Schema;
  switch (httpPart) {
    case 'body':
      return answering(validatorOf(s), bodyDecoder(s));
    case 'querystring':
      return answering(validatorOf(s), (data) => decodeGoQuery(s, data));
    case 'params': {
      const { schema: unbounded, integers } = pathSchemaForGo(s);
      return answering(validatorOf(unbounded), (data) => decodeGoPath(integers, (data ?? {}) as Record<string, unknown>));
    }
    default:
      return answering(validatorOf(s), (data) => data);
  }
};

/** JSON whitespace as Go's decoder knows it; a body of only this is io.EOF, which Gitea ignores. */
const GO_JSON_SPACE = /^[ \t\r\n]*$/;

type Done = (err: Error | null, body?: unknown) => void;
type JsonParser = (request: FastifyRequest, body: string, done: Done) => void;

/**
 * A JSON body parser with Gitea's answers: an empty body is no body; a malformed one is 422
 * `[]: ...` on routes that read a body (Gitea's binding), and ignored on routes that do not (Gitea
 * never reads it there, unknown routes included).
 */
export function goJsonParser(inner: JsonParser): (request: FastifyRequest, body: string | Buffer, done: Done) => void {
  return (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (GO_JSON_SPACE.test(text)) {
      done(null, undefined);
      return;
    }
    const answer = (err: Error | null, value?: unknown) => {
      if (!err) done(null, value);
      else if (request.routeOptions.schema?.body === undefined) done(null, undefined);
      else done(malformedJsonBody(err));
    };
    inner(request, text, (err, value) => {
      // Only a body that does not parse whole is scanned for a complete first value.
      const first = err ? firstJsonValue(text) : text;
      if (first === text) answer(err, value);
      else inner(request, first, answer);
    });
  };
}

export function malformedJsonBody(err: Error): UnprocessableError {
  return new UnprocessableError(`[]: ${err.message}`);
}

export function registerGoDecoding(app: FastifyInstance): void {
  app.setValidatorCompiler(goValidatorCompiler);
  const inner = app.getDefaultJsonParser('error', 'error') as unknown as JsonParser;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, goJsonParser(inner));
}
