import { Type, type Static } from '@sinclair/typebox';
import { filterParameters, intervalParameter, rangeParameters } from '../query/query-schemas.js';
import { trendIntervalNames } from '../query/trend-interval.js';

const Timestamp = Type.String({ format: 'date-time' });

const tenantParameter = {
  tenantId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Only this tenant (the occurrences’ `tenantId`).' })),
};

export const UsageQuery = Type.Object({ ...rangeParameters, ...filterParameters, ...tenantParameter });
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageTrendQuery = Type.Object({ ...rangeParameters, ...filterParameters, ...tenantParameter, ...intervalParameter });
export type UsageTrendQuery = Static<typeof UsageTrendQuery>;

export const usageExportIntervalDefault = '1d';

export const UsageExportQuery = Type.Object({
  ...rangeParameters,
  ...filterParameters,
  ...tenantParameter,
  interval: Type.Optional(
    Type.Union(
      trendIntervalNames.map((name) => Type.Literal(name)),
      { description: `Period of each row, aligned to the interval (UTC). Default: ${usageExportIntervalDefault}. At most 1440 periods.` },
    ),
  ),
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')], { description: 'csv (default) or json.' })),
});
export type UsageExportQuery = Static<typeof UsageExportQuery>;

const UsageFigures = {
  occurrences: Type.Integer(),
  errors: Type.Integer({ description: 'Occurrences with status error.' }),
  totalDurationMs: Type.Number({ description: 'Sum of the occurrences’ durations.' }),
  logs: Type.Integer({ description: 'Log records.' }),
};

export const UsageResponse = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    tenants: Type.Array(
      Type.Object({ tenantId: Type.String(), ...UsageFigures, services: Type.Array(Type.String(), { description: 'Services that served the tenant.' }) }),
      { description: 'Most occurrences first (then most log records); occurrences and log records without a tenantId are not counted.' },
    ),
  },
  { $id: 'UsageResponse' },
);
export type UsageResponse = Static<typeof UsageResponse>;

export const UsageTrendResponse = Type.Object(
  {
    from: Timestamp,
    to: Timestamp,
    interval: Type.String(),
    buckets: Type.Array(Type.Object({ start: Timestamp, ...UsageFigures }), { description: 'Every bucket in time order; empty ones as zeros.' }),
  },
  { $id: 'UsageTrendResponse' },
);
export type UsageTrendResponse = Static<typeof UsageTrendResponse>;

export const UsageExportRow = Type.Object({
  periodStart: Timestamp,
  tenantId: Type.String(),
  service: Type.String(),
  environment: Type.String(),
  ...UsageFigures,
});
export type UsageExportRow = Static<typeof UsageExportRow>;

export const UsageExportJson = Type.Object(
  { rows: Type.Array(UsageExportRow, { description: 'By period, then tenant, service, environment.' }) },
  { $id: 'UsageExportJson' },
);
