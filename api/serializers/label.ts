// Moved to core/wire/label.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/label.js';
