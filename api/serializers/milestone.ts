// Milestones share the label serializer's module; this re-export keeps the one-file-per-record layout.
export { toApiMilestone, type ApiMilestone } from './label.js';
