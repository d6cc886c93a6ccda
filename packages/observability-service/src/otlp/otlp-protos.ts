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

const setMember = Symbol('oneof member');

/** Every message type under a namespace. */
function messageTypes(namespace: protobuf.NamespaceBase): protobuf.Type[] {
  return namespace.nestedArray.flatMap((nested) => [
    ...(nested instanceof protobuf.Type ? [nested] : []),
    ...(nested instanceof protobuf.Namespace || nested instanceof protobuf.Type ? messageTypes(nested) : []),
  ]);
}

/**
 * Sets up the root's message types with plain oneof properties (`AnyValue.value`, naming the member
 * that is set). protobufjs's own setter, which its decoder runs for every attribute value,
 * `delete`s each other member (slow, and it turns the message into a dictionary-mode object), and
 * its getter scans the message's keys; attribute values dominate OTLP decoding. The last member
 * read still names the value, as the protobuf specification says; a message built by `fromObject`,
 * which does not set the property, falls back to finding its member. Only these types are set up
 * so: protobufjs's helpers are restored at once.
 */
function setUpWithPlainOneofs(root: protobuf.Root): void {
  // `util` is protobufjs's own (mutable) object, which `setup()` reads the helpers from.
  const { oneOfGetter, oneOfSetter } = protobuf.util;
  Object.assign(protobuf.util, {
    oneOfGetter: (members: string[]): protobuf.OneOfGetter =>
      function (this: Record<string | symbol, unknown>) {
        const set = this[setMember] as string | undefined;
        return set ?? members.find((member) => Object.hasOwn(this, member) && this[member] !== null && this[member] !== undefined);
      },
    oneOfSetter: (): protobuf.OneOfSetter =>
      function (this: Record<string | symbol, unknown>, name: string | undefined) {
        this[setMember] = name;
      },
  });
  try {
    for (const type of messageTypes(root)) type.setup();
  } finally {
    Object.assign(protobuf.util, { oneOfGetter, oneOfSetter });
  }
}

/** The vendored definitions, loaded once (protobufjs builds its decoders from them). */
export function otlpRoot(): protobuf.Root {
  if (!root) {
    const loaded = new protobuf.Root();
    // google/protobuf/* (Any, Duration) are built into protobufjs; everything else is vendored.
    loaded.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : protoDir + target);
    loaded.loadSync(protoFiles);
    loaded.resolveAll();
    setUpWithPlainOneofs(loaded);
    root = loaded;
  }
  return root;
}

/** A message type of the vendored definitions, e.g. `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`. */
export function otlpType(fullName: string): protobuf.Type {
  return otlpRoot().lookupType(fullName);
}
