// The service's one configuration object: read once from the environment (and an optional
// JSON file named by CONFIG_FILE), validated with TypeBox, with Gitea's setting names.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });
/** Unset ('') or a value: Temporal's own settings leave these to the SDK (or, for TLS, to the other settings) when unset. */
const Unset = Type.Literal('');
const OptionalBoolean = (description: string) => Type.Union([Unset, Type.Boolean()], { description });
const OptionalCount = (minimum: number, description: string) => Type.Union([Unset, Type.Integer({ minimum, maximum: 100_000 })], { description });

export const ConfigSchema = Type.Object({
  APP_URL: Type.String({ minLength: 1, description: 'Public URL of the service, ends with /' }),
  HTTP_ADDR: Type.String({ minLength: 1 }),
  HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535 }),
  APP_DATA_PATH: Type.String({ minLength: 1 }),
  ENABLE_SWAGGER: Type.Boolean(),
  MAX_RESPONSE_ITEMS: Type.Integer({ minimum: 1, maximum: 10000 }),
  DEFAULT_PAGING_NUM: Type.Integer({ minimum: 1, maximum: 10000 }),
  MAX_GIT_DIFF_LINES: Type.Integer({ minimum: 1 }),
  MAX_GIT_DIFF_LINE_CHARACTERS: Type.Integer({ minimum: 1 }),
  MAX_GIT_DIFF_FILES: Type.Integer({ minimum: 1 }),
  BODY_LIMIT: Type.Integer({ minimum: 1024, description: 'largest JSON body in bytes' }),
  MARKUP_BODY_LIMIT: Type.Integer({ minimum: 1024, description: 'largest markdown source in bytes' }),
  DB_TYPE: Type.Union([Type.Literal('sqlite3'), Type.Literal('mysql')]),
  DB_HOST: Type.String(),
  DB_NAME: Type.String(),
  DB_USER: Type.String(),
  DB_PASSWD: Type.String(),
  DB_PATH: Type.String({ description: 'SQLite file; defaults to APP_DATA_PATH/pullhost.db' }),
  DB_MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1000 }),
  DB_SSL_MODE: Type.Union(['false', 'disable', 'true', 'skip-verify'].map((m) => Type.Literal(m)), { description: "Gitea's [database] SSL_MODE for MySQL" }),
  DB_SSL_CA_PATH: Type.String({ description: 'PEM file of the CA that signed the MySQL server certificate (default: the system CAs)' }),
  TEMPORAL_ADDRESS: Type.String({ description: 'empty: start the dev server as a child process' }),
  TEMPORAL_NAMESPACE: Type.String({ minLength: 1 }),
  TEMPORAL_API_KEY: Type.String({ description: 'sent as a bearer token (Temporal Cloud); turns TLS on unless TEMPORAL_TLS=false' }),
  TEMPORAL_TLS: OptionalBoolean('unset: TLS when an API key or any TLS setting is given, as the Temporal CLI and SDKs decide'),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: Type.String(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: Type.String(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: Type.String(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: Type.String(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: Type.String(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: Type.String(),
  TEMPORAL_TLS_SERVER_NAME: Type.String({ description: 'the name the server certificate must carry (SNI), when not the host of TEMPORAL_ADDRESS' }),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: OptionalBoolean('not supported by the TypeScript SDK: set TEMPORAL_TLS_SERVER_NAME instead'),
  TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: OptionalCount(1, 'workflow task slots of a worker process (SDK default 40)'),
  TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES: OptionalCount(1, 'activity task slots of a worker process (SDK default 100)'),
  TEMPORAL_WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: OptionalCount(1, 'local activity slots (merges run as local activities; SDK default 100)'),
  TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: OptionalCount(0, 'sticky cache size: workflows kept in memory between tasks (SDK default from the heap size; 0 turns it off)'),
  TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, description: 'how long a workflow task waits on its worker\'s own (sticky) queue before any worker may take it: a busy worker\'s backlog moved elsewhere is replayed there from its whole history (SDK default 10)' }),
  TEMPORAL_TASK_QUEUE: Type.String({ minLength: 1 }),
  TEMPORAL_HISTORY_EVENT_LIMIT: Type.Integer({ minimum: 20, description: 'a pull request workflow continues as new after this many history events' }),
  TEMPORAL_WORKFLOW_ID_PREFIX: Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9._/-]*$', description: 'put before every pull request workflow id, so installations can share a namespace' }),
  TEMPORAL_DEV_PORT: Port,
  TEMPORAL_UI_PORT: Port,
  TEMPORAL_CLI_PATH: Type.String(),
  POOL_MIN_THREADS: Type.Integer({ minimum: 0, maximum: 256 }),
  POOL_MAX_THREADS: Type.Integer({ minimum: 1, maximum: 256 }),
  POOL_MAX_QUEUE: Type.Integer({ minimum: 1 }),
  POOL_TASK_TIMEOUT_MS: Type.Integer({ minimum: 100 }),
  IDLE_GC_SECONDS: Type.Integer({ minimum: 0, description: 'after this many seconds without a request or a worker activity following work, one full garbage collection of the main thread gives the load\'s garbage back; the worker threads\' heaps are collected after one quiet second (0: neither)' }),
  POOL_IDLE_TIMEOUT_MS: Type.Integer({ minimum: 100, description: 'a pool thread idle this long (beyond POOL_MIN_THREADS) ends, and the heap it grew is given back' }),
  POOL_THREAD_HEAP_MIB: Type.Integer({ minimum: 16, description: 'largest old-generation heap of a pool thread: a task needing more gets a 422; V8 also collects sooner under a lower limit' }),
  PUSH_CATCH_UP_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400, description: 'how often an API process compares the open pull requests\' heads and checked bases with their branches and replays the post-receive work a failing step left undone (a difference found by two sweeps in a row); 0: only when the process starts' }),
  READ_CACHE_MEMORY_BYTES: Type.Integer({ minimum: 0, description: 'bytes of commit lists, file lists and statistics kept in memory by (base, head) commit ids; 0 turns the cache off' }),
  READ_CACHE_DISK_BYTES: Type.Integer({ minimum: 0, description: 'bytes of pull request diffs kept under APP_DATA_PATH/cache/diffs; 0 turns the disk cache off' }),
  READ_CACHE_DIFF_MAX_BYTES: Type.Integer({ minimum: 0, description: 'largest single diff kept on disk' }),
  READ_CACHE_DIFF_MEMORY_BYTES: Type.Integer({ minimum: 0, description: 'bytes of the diffs read most recently from the disk cache kept whole in memory, each up to a quarter of it; 0 keeps none' }),
  SECRET_KEY: Type.String({ description: 'server secret; generated under APP_DATA_PATH when empty' }),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  ENABLE_METRICS: Type.Boolean({ description: 'serve GET /metrics without a token (METRICS_TOKEN set serves it with one)' }),
  METRICS_TOKEN: Type.String(),
  WORK_IN_PROGRESS_PREFIXES: Type.String(),
  WEBHOOK_ALLOWED_HOST_LIST: Type.String({ description: "Gitea's [webhook] ALLOWED_HOST_LIST: external, private, loopback, *, CIDRs and host globs, comma-separated" }),
  WEBHOOK_SKIP_TLS_VERIFY: Type.Boolean(),
  WEBHOOK_DELIVER_TIMEOUT: Type.Integer({ minimum: 1, maximum: 600, description: 'seconds one delivery attempt may take' }),
  WEBHOOK_PAGING_NUM: Type.Integer({ minimum: 1, maximum: 1000, description: "a hook's deliveries listed per page" }),
  WEBHOOK_RETRY_MIN_BACKOFF_MS: Type.Integer({ minimum: 10, description: 'wait before the first retry of a failed delivery; doubled after each' }),
  WEBHOOK_RETRY_MAX_BACKOFF_MS: Type.Integer({ minimum: 10, description: 'longest wait between retries' }),
  WEBHOOK_RETRY_WINDOW: Type.Integer({ minimum: 1, description: 'seconds after its event a failing delivery is given up' }),
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: Type.Integer({ minimum: 1, maximum: 1000, description: 'hooks one worker process delivers to at once' }),
});

export type Config = Static<typeof ConfigSchema>;

const defaults = (dataPath: string): Record<string, string> => ({
  APP_URL: '',
  HTTP_ADDR: '0.0.0.0',
  HTTP_PORT: '3000',
  APP_DATA_PATH: dataPath,
  ENABLE_SWAGGER: 'true',
  MAX_RESPONSE_ITEMS: '50',
  DEFAULT_PAGING_NUM: '30',
  MAX_GIT_DIFF_LINES: '1000',
  MAX_GIT_DIFF_LINE_CHARACTERS: '5000',
  MAX_GIT_DIFF_FILES: '100',
  BODY_LIMIT: String(1024 * 1024),
  MARKUP_BODY_LIMIT: String(2 * 1024 * 1024),
  DB_TYPE: 'sqlite3',
  DB_HOST: '127.0.0.1:3306',
  DB_NAME: 'pullhost',
  DB_USER: 'root',
  DB_PASSWD: '',
  DB_PATH: '',
  DB_MAX_CONNECTIONS: '10',
  DB_SSL_MODE: 'false',
  DB_SSL_CA_PATH: '',
  TEMPORAL_ADDRESS: '',
  TEMPORAL_NAMESPACE: 'default',
  TEMPORAL_API_KEY: '',
  TEMPORAL_TLS: '',
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: '',
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: '',
  TEMPORAL_TLS_CLIENT_CERT_PATH: '',
  TEMPORAL_TLS_CLIENT_CERT_DATA: '',
  TEMPORAL_TLS_CLIENT_KEY_PATH: '',
  TEMPORAL_TLS_CLIENT_KEY_DATA: '',
  TEMPORAL_TLS_SERVER_NAME: '',
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: '',
  TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '',
  TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES: '',
  TEMPORAL_WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: '',
  TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: '',
  TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS: '30',
  TEMPORAL_TASK_QUEUE: 'pullhost',
  TEMPORAL_HISTORY_EVENT_LIMIT: '2000',
  TEMPORAL_WORKFLOW_ID_PREFIX: '',
  TEMPORAL_DEV_PORT: '7233',
  TEMPORAL_UI_PORT: '8233',
  TEMPORAL_CLI_PATH: '',
  POOL_MIN_THREADS: '0',
  POOL_MAX_THREADS: '2',
  POOL_MAX_QUEUE: '256',
  POOL_TASK_TIMEOUT_MS: '10000',
  POOL_IDLE_TIMEOUT_MS: '10000',
  POOL_THREAD_HEAP_MIB: '1024',
  IDLE_GC_SECONDS: '10',
  PUSH_CATCH_UP_SECONDS: '300',
  READ_CACHE_MEMORY_BYTES: String(32 * 1024 * 1024),
  READ_CACHE_DISK_BYTES: String(1024 * 1024 * 1024),
  READ_CACHE_DIFF_MAX_BYTES: String(256 * 1024 * 1024),
  READ_CACHE_DIFF_MEMORY_BYTES: String(64 * 1024 * 1024),
  SECRET_KEY: '',
  LOG_LEVEL: 'info',
  ENABLE_METRICS: 'false',
  METRICS_TOKEN: '',
  WORK_IN_PROGRESS_PREFIXES: 'WIP:,[WIP]',
  WEBHOOK_ALLOWED_HOST_LIST: 'external',
  WEBHOOK_SKIP_TLS_VERIFY: 'false',
  WEBHOOK_DELIVER_TIMEOUT: '5',
  WEBHOOK_PAGING_NUM: '10',
  WEBHOOK_RETRY_MIN_BACKOFF_MS: '1000',
  WEBHOOK_RETRY_MAX_BACKOFF_MS: '600000',
  WEBHOOK_RETRY_WINDOW: '86400',
  WEBHOOK_MAX_CONCURRENT_DELIVERIES: '32',
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface SettingSchema {
  type?: unknown;
  anyOf?: SettingSchema[];
}

/** Converts the string forms of the environment into the schema's types, naming the bad setting. */
function coerce(name: string, raw: string, schema: SettingSchema): unknown {
  // An optional setting ('' or a value): empty stays unset, anything else is read as the value's type.
  const valueSchema = schema.anyOf?.find((s) => s.type !== undefined && s.type !== 'string');
  if (valueSchema) return raw.trim() === '' ? '' : coerce(name, raw, valueSchema);
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
    return Number(raw.trim());
  }
  if (schema.type === 'boolean') {
    const v = raw.trim().toLowerCase();
    if (['1', 't', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'f', 'false', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  }
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const fileValues: Record<string, string> = {};
  if (env.CONFIG_FILE) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(env.CONFIG_FILE, 'utf8'));
    } catch (err) {
      throw new ConfigError(`CONFIG_FILE ${env.CONFIG_FILE} could not be read as JSON: ${(err as Error).message}`);
    }
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) fileValues[k] = String(v);
  }
  const dataPath = resolve(cwd, env.APP_DATA_PATH ?? fileValues.APP_DATA_PATH ?? './data');
  const base = defaults(dataPath);
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(ConfigSchema.properties)) {
    const raw = env[name] ?? fileValues[name] ?? base[name];
    out[name] = coerce(name, raw, schema as SettingSchema);
  }
  out.APP_DATA_PATH = dataPath;
  if (!out.APP_URL) out.APP_URL = `http://localhost:${out.HTTP_PORT}/`;
  if (!String(out.APP_URL).endsWith('/')) out.APP_URL = `${out.APP_URL}/`;
  if (!out.DB_PATH) out.DB_PATH = resolve(dataPath, 'pullhost.db');
  const firstError = Value.Errors(ConfigSchema, out)[0];
  if (firstError) {
    const setting = firstError.instancePath.replace(/^\//, '') || 'configuration';
    throw new ConfigError(`${setting}: ${firstError.message}`);
  }
  const cfg = out as Config;
  if (cfg.POOL_MIN_THREADS > cfg.POOL_MAX_THREADS) {
    throw new ConfigError('POOL_MIN_THREADS must not exceed POOL_MAX_THREADS');
  }
  if (cfg.WEBHOOK_RETRY_MIN_BACKOFF_MS > cfg.WEBHOOK_RETRY_MAX_BACKOFF_MS) {
    throw new ConfigError('WEBHOOK_RETRY_MIN_BACKOFF_MS must not exceed WEBHOOK_RETRY_MAX_BACKOFF_MS');
  }
  try {
    new URL(cfg.APP_URL);
  } catch {
    throw new ConfigError(`APP_URL must be an absolute URL, got "${cfg.APP_URL}"`);
  }
  checkTemporalSettings(cfg);
  return cfg;
}

/** Settings that only make sense together, checked as Temporal's own configuration loader does. */
function checkTemporalSettings(cfg: Config): void {
  for (const what of ['SERVER_CA_CERT', 'CLIENT_CERT', 'CLIENT_KEY'] as const) {
    if (cfg[`TEMPORAL_TLS_${what}_PATH`] && cfg[`TEMPORAL_TLS_${what}_DATA`]) {
      throw new ConfigError(`TEMPORAL_TLS_${what}_PATH and TEMPORAL_TLS_${what}_DATA: give one of them, not both`);
    }
  }
  const hasCert = Boolean(cfg.TEMPORAL_TLS_CLIENT_CERT_PATH || cfg.TEMPORAL_TLS_CLIENT_CERT_DATA);
  const hasKey = Boolean(cfg.TEMPORAL_TLS_CLIENT_KEY_PATH || cfg.TEMPORAL_TLS_CLIENT_KEY_DATA);
  if (hasCert !== hasKey) {
    throw new ConfigError(`${hasCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH'} is missing: a client certificate and its key go together`);
  }
  if (cfg.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === true) {
    throw new ConfigError('TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is not supported by the TypeScript SDK: set TEMPORAL_TLS_SERVER_NAME to the name in the server certificate');
  }
  const workflowSlots = cfg.TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS;
  const cached = cfg.TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS;
  if (workflowSlots === 1 && cached !== 0) {
    throw new ConfigError('TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS must be at least 2 unless TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS is 0 (the SDK needs a slot for the sticky queue)');
  }
}
