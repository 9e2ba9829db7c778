// Moved to core/wire/user.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/user.js';
