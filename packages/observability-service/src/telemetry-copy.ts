// The telemetry copy command (`npm run telemetry:copy -- --from <store> --to <store>`, or
// `node packages/observability-service/dist/telemetry-copy.js ...` where the service is built):
// copies telemetry between SQLite, PostgreSQL and ClickHouse (docs/operations.md). Ctrl-C (or
// SIGTERM) stops it after the batch in hand, a second one at once; either way the next run
// continues where the state file says.
import { exitCodes, runTelemetryCopyCommand } from './telemetry-copy/telemetry-copy-command.js';

let stopRequested = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopRequested) process.exit(exitCodes.interrupted);
    stopRequested = true;
    process.stderr.write('telemetry copy: stopping after the batch in hand (again to stop at once; the next run continues either way)\n');
  });
}

const status = await runTelemetryCopyCommand(process.argv.slice(2), {
  say: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
  stopped: () => stopRequested,
});
process.exit(status);
