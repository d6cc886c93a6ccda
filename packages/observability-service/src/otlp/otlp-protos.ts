import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** The vendored `.proto` files (see proto/README.md): the same path from src/ and from dist/. */
const protoDir = fileURLToPath(new URL('../../proto/', import.meta.url));

/** The files the service loads: the signals it receives and the error details it answers with. */
const protoFiles = [
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
];

let root: protobuf.Root | undefined;

/** The vendored definitions, loaded once (protobufjs builds its decoders from them). */
export function otlpRoot(): protobuf.Root {
  if (!root) {
    const loaded = new protobuf.Root();
    // google/protobuf/* (Any, Duration) are built into protobufjs; everything else is vendored.
    loaded.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : protoDir + target);
    loaded.loadSync(protoFiles);
    loaded.resolveAll();
    root = loaded;
  }
  return root;
}

/** A message type of the vendored definitions, e.g. `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`. */
export function otlpType(fullName: string): protobuf.Type {
  return otlpRoot().lookupType(fullName);
}
