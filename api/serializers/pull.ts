// Moved to core/wire/pull.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/pull.js';
