import fp from 'fastify-plugin';
import type { App } from '@playstack/server-kit';
import { runRequestedRebuilds, type RebuildPart } from './rollup-rebuild.js';

export interface RollupRebuildOptions {
  parts: readonly RebuildPart[];
}

/**
 * Runs the rebuilds migrations asked for before anything ingests or reads: registered ahead of
 * ingestion and the read routes, it holds the start until they are done.
 */
export const rollupRebuildPlugin = fp<RollupRebuildOptions>(
  async (fastify, options) => {
    const app = fastify as unknown as App;
    const started = performance.now();
    const result = await runRequestedRebuilds(app.database, options.parts);
    if (result.parts.length > 0) {
      app.log.info({ parts: result.parts, occurrences: result.occurrences, durationMs: Math.round(performance.now() - started) }, 'rebuilt derived data from the stored occurrences');
    }
  },
  { name: 'rollup-rebuild' },
);
