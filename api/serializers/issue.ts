// Moved to core/wire/issue.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/issue.js';
