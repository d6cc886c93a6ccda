// The Node.js flags a service process starts with: its package.json's `nodeFlags`, and on
// Node.js 22 `--experimental-async-context-frame`. That flag (the default from Node.js 24 on)
// makes AsyncLocalStorage keep its context in the async frame instead of running an async hook on
// every promise: with tracing on, OpenTelemetry's context then costs nothing on requests that are
// not sampled (docs/self-telemetry.md). Node.js 20 has no such flag.
import { readFileSync } from 'node:fs';

/** Flags the running Node.js version needs for the services (empty where none). */
export function versionNodeFlags(version = process.versions.node) {
  return Number(version.split('.')[0]) === 22 ? ['--experimental-async-context-frame'] : [];
}

/** The flags `npm start` starts `service` (a folder under packages/) with. */
export function serviceNodeFlags(service) {
  const packageJson = JSON.parse(readFileSync(new URL(`../packages/${service}/package.json`, import.meta.url), 'utf8'));
  return [...(packageJson.nodeFlags ?? []), ...versionNodeFlags()];
}
