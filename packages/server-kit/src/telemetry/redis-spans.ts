import { SpanKind } from '@opentelemetry/api';
import type { Redis } from 'ioredis';
import { recordFailure, recordingSpanActive, type Tracing } from './tracing.js';

/**
 * Each command this connection sends (pipelined and MULTI ones included) is a CLIENT span named
 * after the command (`ZADD`), with `db.system` `redis`, the command and its key in
 * `db.query.text` (never the values), when a recording span is active (a sampled request's).
 */
export function traceRedis(redis: Redis, tracing: Tracing): void {
  const sendCommand = redis.sendCommand.bind(redis);
  const { host, port } = redis.options;
  redis.sendCommand = (command, stream) => {
    if (!recordingSpanActive()) return sendCommand(command, stream);
    const operation = command.name.toUpperCase();
    const key = typeof command.args[0] === 'string' || Buffer.isBuffer(command.args[0]) ? String(command.args[0]) : undefined;
    const span = tracing.tracer.startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': 'redis',
        'db.system.name': 'redis',
        'db.operation.name': operation,
        'db.query.text': key === undefined ? operation : `${operation} ${key}`,
        ...(host ? { 'server.address': host } : {}),
        ...(port ? { 'server.port': port } : {}),
      },
    });
    command.promise.then(
      () => span.end(),
      (error: unknown) => {
        recordFailure(span, error);
        span.end();
      },
    );
    return sendCommand(command, stream);
  };
}
