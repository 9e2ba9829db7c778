// Moved to core/wire/repo.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/repo.js';
