// The telemetry storage feature's public module: every other feature writes, reads, prunes and
// measures telemetry through a `TelemetryStore` (app.telemetry, decorated by
// telemetry-store-plugin.ts), never through its tables; outside the service (the copy command,
// telemetry-copy/) a store is opened where a `TelemetryStoreLocation` names it.
export type { CommitReport, MaintenanceResult, PruneCounts, TelemetryHealth, TelemetryHealthFigures, TelemetryStore, TelemetryWriter } from './telemetry-store.js';
export { openTelemetryStore, reasonOf, TelemetryStoreUnavailable, type StandaloneStoreOptions, type StandaloneTelemetryStore } from './open-telemetry-store.js';
export { describeStore, parseStoreLocation, sameStore, storeForms, StoreLocationError, type TelemetryStoreLocation } from './telemetry-store-location.js';
