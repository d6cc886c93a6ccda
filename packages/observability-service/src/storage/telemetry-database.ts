import type { FastifyInstance } from 'fastify';
import { databaseView, type Database } from '@playstack/server-kit';
import { observabilityDatabase } from '../database.js';
import type { TelemetryDatabase } from './storage-tables.js';

const telemetryView = databaseView<TelemetryDatabase>();

/** The service database as the SQL telemetry store sees it: the telemetry tables only. */
export function telemetryDatabase(app: Pick<FastifyInstance, 'database'>): Database<TelemetryDatabase> {
  return telemetryView(observabilityDatabase(app));
}
