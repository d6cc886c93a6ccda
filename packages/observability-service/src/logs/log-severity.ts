/**
 * OpenTelemetry severities: numbers 1-24 in six ranges of four, named by their first number;
 * 0 is unspecified. `severity` filters take a name or a number and mean "at least".
 */
export const severityRanges = [
  { name: 'trace', first: 1 },
  { name: 'debug', first: 5 },
  { name: 'info', first: 9 },
  { name: 'warn', first: 13 },
  { name: 'error', first: 17 },
  { name: 'fatal', first: 21 },
] as const;

export type SeverityName = (typeof severityRanges)[number]['name'] | 'unspecified';
export const severityNames: readonly SeverityName[] = ['unspecified', ...severityRanges.map((range) => range.name)];
export const maxSeverityNumber = 24;

/** The named range a severity number falls in. */
export function severityNameOf(severityNumber: number): SeverityName {
  if (severityNumber < 1 || severityNumber > maxSeverityNumber) return 'unspecified';
  return severityRanges[Math.floor((severityNumber - 1) / 4)]!.name;
}

/** Common level words senders put in a severity text, and the number they mean. */
const levelWords: Readonly<Record<string, number>> = {
  trace: 1, debug: 5, info: 9, information: 9, notice: 10, warn: 13, warning: 13,
  error: 17, err: 17, critical: 21, crit: 21, fatal: 21, alert: 22, emergency: 23, emerg: 23,
};

/**
 * The severity number of a record: its own, else the one its text names (the OpenTelemetry
 * data model lets a receiver infer it from a well-known level name), else 0.
 */
export function inferSeverityNumber(severityNumber: number | undefined, severityText: string | undefined): number {
  if (severityNumber !== undefined && severityNumber >= 1 && severityNumber <= maxSeverityNumber) return severityNumber;
  return (severityText && levelWords[severityText.trim().toLowerCase()]) || 0;
}

/** A `severity` filter: a range name (its first number) or a number 1-24; undefined when it is neither. */
export function parseSeverityMinimum(value: string): number | undefined {
  const named = severityRanges.find((range) => range.name === value.trim().toLowerCase());
  if (named) return named.first;
  if (!/^\d{1,2}$/.test(value.trim())) return undefined;
  const number = Number(value);
  return number >= 1 && number <= maxSeverityNumber ? number : undefined;
}
