// Every resource's route module, in the order they are registered.
import type { FastifyInstance } from 'fastify';
import { markupRoutes } from './markup.js';

export const allRoutes: Array<(app: FastifyInstance) => Promise<void>> = [
  markupRoutes,
];
