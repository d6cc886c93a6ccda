import { Type, type Static } from '@sinclair/typebox';

const OtlpSpan = Type.Object(
  {},
  { additionalProperties: true, description: 'An OTLP span (JSON encoding: hex ids, nanosecond timestamps as strings, kind as an integer)' },
);

/** OTLP/HTTP JSON ExportTraceServiceRequest, checked down to the spans (each span is checked on its own). */
export const OtlpTraceRequest = Type.Object(
  {
    resourceSpans: Type.Array(
      Type.Object(
        {
          resource: Type.Optional(Type.Object({ attributes: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))) }, { additionalProperties: true })),
          scopeSpans: Type.Optional(
            Type.Array(Type.Object({ spans: Type.Optional(Type.Array(OtlpSpan)) }, { additionalProperties: true })),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true, description: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest in its JSON encoding' },
);
export type OtlpTraceRequest = Static<typeof OtlpTraceRequest>;

/** ExportTraceServiceResponse; `partialSuccess` is present when some spans were refused. */
export const OtlpTraceResponse = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedSpans: Type.Integer({ minimum: 0 }),
        errorMessage: Type.String(),
      }),
    ),
  },
  { $id: 'OtlpTraceResponse' },
);
export type OtlpTraceResponse = Static<typeof OtlpTraceResponse>;
