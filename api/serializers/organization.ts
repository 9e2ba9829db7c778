// Moved to core/wire/organization.ts, so that core/ (webhook payloads) converts rows the same way the API does.
export * from '../../core/wire/organization.js';
