import { Type, type Static } from '@sinclair/typebox';

export const apdexThresholdMinMs = 1;
export const apdexThresholdMaxMs = 600_000;

export const ServiceSettingsParams = Type.Object({ service: Type.String({ minLength: 1, maxLength: 256, description: 'The service name (the envelope resource `service`).' }) });
export type ServiceSettingsParams = Static<typeof ServiceSettingsParams>;

const ApdexThreshold = Type.Number({
  minimum: apdexThresholdMinMs,
  maximum: apdexThresholdMaxMs,
  description: `Apdex threshold T in milliseconds (${apdexThresholdMinMs} to ${apdexThresholdMaxMs}): an entry span is satisfied at or below T, tolerating up to 4T, frustrated above 4T or when it is an error.`,
});

export const ServiceSettingsUpdate = Type.Object({ apdexThresholdMs: ApdexThreshold }, { additionalProperties: false });
export type ServiceSettingsUpdate = Static<typeof ServiceSettingsUpdate>;

export const ServiceSettings = Type.Object(
  {
    service: Type.String(),
    apdexThresholdMs: ApdexThreshold,
    apdexThresholdIsDefault: Type.Boolean({ description: 'True when the service uses the default (APDEX_THRESHOLD_MS), never set for it.' }),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was last changed; null for the default.' }),
  },
  { $id: 'ServiceSettings' },
);
export type ServiceSettings = Static<typeof ServiceSettings>;
