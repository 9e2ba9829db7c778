// Authentication building blocks; see each module for the reasoning behind its rules.
export * from './credentials.js';
export * from './messages.js';
export * from './passwords.js';
export * from './scopes.js';
export * from './throttle.js';
export * from './tokens.js';
export * from './totp.js';
export * from './usernames.js';
