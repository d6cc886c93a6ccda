// npm run telemetry:copy -- --from <store> --to <store> [options]: the observability service's
// telemetry copy command (docs/operations.md), run as built, as npm start runs the services: they
// are built first when their sources changed since the last build (usually nothing is).
import { buildIfStale } from './build.mjs';

const built = buildIfStale((msg) => process.stderr.write(`telemetry copy: ${msg}\n`), ['services']);
if (built !== 0) {
  process.stderr.write(`telemetry copy: the build failed (exit ${built}); fix the error above and run the command again\n`);
  process.exit(built);
}
await import('../packages/observability-service/dist/telemetry-copy.js');
