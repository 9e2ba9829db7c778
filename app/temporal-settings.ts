// Turns the configuration into what the Temporal connections and the worker take: TLS material read
// from its files (a file that cannot be read stops start-up naming its setting) and the worker's
// tuning. TLS is decided as Temporal's CLI and SDKs decide it from the same variables.
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, type Config } from './config.js';
import type { TemporalConnectionSettings } from '../workers/temporal-connection.js';
import type { WorkerTuning } from '../workers/temporal-worker.js';

type PemSetting = 'SERVER_CA_CERT' | 'CLIENT_CERT' | 'CLIENT_KEY';

/** The PEM of TEMPORAL_TLS_<what>_DATA, or of the file TEMPORAL_TLS_<what>_PATH names; null when neither is set. */
function pem(config: Config, what: PemSetting): Buffer | null {
  const data = config[`TEMPORAL_TLS_${what}_DATA`];
  if (data) return Buffer.from(data);
  const path = config[`TEMPORAL_TLS_${what}_PATH`];
  if (!path) return null;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`TEMPORAL_TLS_${what}_PATH: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * TEMPORAL_TLS=true or false decides; unset, TLS is on when an API key or any TLS setting is given
 * (the rule of Temporal's environment configuration, so an operator's settings mean the same here).
 */
export function temporalTlsConfig(config: Config): TLSConfig | undefined {
  const anyTlsSetting = Boolean(config.TEMPORAL_TLS_SERVER_CA_CERT_PATH || config.TEMPORAL_TLS_SERVER_CA_CERT_DATA || config.TEMPORAL_TLS_CLIENT_CERT_PATH
    || config.TEMPORAL_TLS_CLIENT_CERT_DATA || config.TEMPORAL_TLS_SERVER_NAME);
  const enabled = config.TEMPORAL_TLS === '' ? anyTlsSetting || Boolean(config.TEMPORAL_API_KEY) : config.TEMPORAL_TLS;
  if (!enabled) return undefined;
  const ca = pem(config, 'SERVER_CA_CERT');
  const crt = pem(config, 'CLIENT_CERT');
  const key = pem(config, 'CLIENT_KEY');
  return {
    ...(config.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: config.TEMPORAL_TLS_SERVER_NAME } : {}),
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(crt && key ? { clientCertPair: { crt, key } } : {}),
  };
}

export function temporalConnectionSettings(config: Config, address: string): TemporalConnectionSettings {
  const tls = temporalTlsConfig(config);
  return { address, ...(tls ? { tls } : {}), ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}) };
}

export function workerTuning(config: Config): WorkerTuning {
  const tuning: WorkerTuning = {};
  if (config.TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== '') tuning.maxConcurrentWorkflowTaskExecutions = config.TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS;
  if (config.TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES !== '') tuning.maxConcurrentActivityTaskExecutions = config.TEMPORAL_WORKER_MAX_CONCURRENT_ACTIVITIES;
  if (config.TEMPORAL_WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES !== '') tuning.maxConcurrentLocalActivityExecutions = config.TEMPORAL_WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES;
  if (config.TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS !== '') tuning.maxCachedWorkflows = config.TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS;
  tuning.stickyQueueScheduleToStartTimeout = `${config.TEMPORAL_WORKER_STICKY_TIMEOUT_SECONDS}s`;
  return tuning;
}
