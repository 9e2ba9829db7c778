// Entry point for the Temporal bundler: every workflow the worker runs.
export { pullRequestWorkflow } from './pull.js';
