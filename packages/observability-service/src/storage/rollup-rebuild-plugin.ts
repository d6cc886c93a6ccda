import fp from 'fastify-plugin';
import type { ObservabilityApp, ObservabilityDatabase } from '../database.js';
import { runRequestedRebuilds, type RebuildPart } from './rollup-rebuild.js';

export interface RollupRebuildOptions {
  /** Each over its own tables of the service database. */
  parts: readonly RebuildPart<ObservabilityDatabase>[];
}

/**
 * Runs the rebuilds migrations asked for before anything ingests or reads: registered ahead of
 * ingestion and the read routes, it holds the start until they are done.
 */
export const rollupRebuildPlugin = fp<RollupRebuildOptions>(
  async (app: ObservabilityApp, options) => {
    const started = performance.now();
    const result = await runRequestedRebuilds(app.database, options.parts);
    if (result.parts.length > 0) {
      app.log.info({ parts: result.parts, occurrences: result.occurrences, durationMs: Math.round(performance.now() - started) }, 'rebuilt derived data from the stored occurrences');
    }
  },
  { name: 'rollup-rebuild' },
);
