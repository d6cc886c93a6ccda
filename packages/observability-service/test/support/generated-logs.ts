import { seededRandom } from '@playstack/server-kit/testing';
import type { NewLogRecord } from '../../src/logs/index.js';
import { generatedEnvironments, generatedServices, generatedTenants } from './generated-occurrences.js';

const hex = (random: () => number, length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Words bodies are made of: some share a stem, case or punctuation with others, so searches have near misses to leave out. */
export const generatedLogWords = ['timeout', 'timeouts', 'Timeout', 'lock', 'locks', 'blocked', 'player', 'players', 'café', 'cafe', 'retry', 'ok', 'queue'] as const;
const phrases = ['GET /api/players failed', 'POST /api/orders ok', 'api players', 'v1.2 released', 'eu-west region'];
const severities = [0, 1, 5, 9, 9, 9, 10, 13, 13, 17, 17, 21] as const;

export interface GeneratedLogs {
  records: NewLogRecord[];
  /** Trace ids some records carry (the first has the most). */
  traceIds: string[];
}

/**
 * `count` log records over the 3 days before `nowMs` (a few in the same millisecond), over the
 * generated services, environments and tenants, with words, phrases, structured bodies,
 * attributes and traces: one data set every log store is given in the equivalence test.
 */
export function generateLogs(nowMs: number, count: number, seed = 5): GeneratedLogs {
  const random = seededRandom(seed);
  const traceIds = Array.from({ length: 12 }, () => hex(random, 32));
  const records: NewLogRecord[] = [];
  for (let index = 0; index < count; index++) {
    const sameMillisecond = index > 0 && random() < 0.05;
    const timeMs = sameMillisecond ? records[index - 1]!.time_ms : nowMs - 1 - Math.floor(random() * 3 * 24 * 3_600_000);
    const shape = random();
    const words = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, generatedLogWords)).join(' ');
    const body = shape < 0.1 ? null : shape < 0.25 ? JSON.stringify({ event: pick(random, generatedLogWords), players: Math.floor(random() * 8) }) : shape < 0.45 ? `${pick(random, phrases)} ${words}` : words;
    const severityNumber = pick(random, severities);
    const traced = random() < 0.4;
    records.push({
      time_ms: timeMs,
      time_ns: Math.floor(random() * 1_000_000),
      observed_ms: timeMs + Math.floor(random() * 50),
      severity_number: severityNumber,
      severity_text: severityNumber === 0 ? null : severityNumber >= 17 ? 'ERROR' : 'INFO',
      body,
      body_json: shape >= 0.1 && shape < 0.25 ? 1 : 0,
      event_name: random() < 0.1 ? 'match.ended' : null,
      service: pick(random, generatedServices),
      environment: pick(random, generatedEnvironments),
      service_version: random() < 0.5 ? '1.4.2' : null,
      instance: random() < 0.5 ? `i-${Math.floor(random() * 3)}` : null,
      scope_name: random() < 0.5 ? 'matchmaker' : null,
      scope_version: random() < 0.2 ? '0.9' : null,
      trace_id: traced ? (random() < 0.3 ? traceIds[0]! : pick(random, traceIds)) : null,
      span_id: traced ? hex(random, 16) : null,
      flags: traced ? 1 : 0,
      tenant_id: random() < 0.6 ? pick(random, generatedTenants) : null,
      attributes: random() < 0.7 ? JSON.stringify({ region: pick(random, ['eu', 'us']), shard: Math.floor(random() * 3), cached: random() < 0.5 }) : null,
      resource_attributes: random() < 0.3 ? JSON.stringify({ 'host.name': `host-${Math.floor(random() * 2)}` }) : null,
    });
  }
  return { records, traceIds };
}
