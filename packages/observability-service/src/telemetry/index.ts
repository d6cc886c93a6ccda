// The telemetry storage feature's public module: every other feature writes, reads, prunes and
// measures telemetry through a `TelemetryStore` (app.telemetry, decorated by
// telemetry-store-plugin.ts), never through its tables.
export type { CommitReport, MaintenanceResult, PruneCounts, TelemetryHealth, TelemetryHealthFigures, TelemetryStore, TelemetryWriter } from './telemetry-store.js';
