import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { AlertRuleSpec, ruleProblems, type AlertRule } from './alert-rule.js';

/** The format of ALERT_RULES_FILE and of the export: YAML or JSON of this shape (docs/alerts.md, "Alerts as code"). */
export const AlertRulesFile = Type.Object(
  {
    version: Type.Literal(1),
    rules: Type.Array(AlertRuleSpec, { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);
export type AlertRulesFile = Static<typeof AlertRulesFile>;

/** Every problem of a rules file, each with where it is. */
export class AlertRulesFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file} (ALERT_RULES_FILE) has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'AlertRulesFileError';
  }
}

/** A file rule's id: stable across restarts and edits of anything but its name. */
export const fileRuleId = (name: string) => `file_${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;

/** `/rules/2/threshold` as `rules[2].threshold`. */
function location(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('') || '(the whole file)';
}

/** Parses and validates rules-file text; throws `AlertRulesFileError` listing every problem. */
export function parseRulesFile(file: string, text: string): Array<{ id: string; spec: AlertRuleSpec }> {
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new AlertRulesFileError(file, [`not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const withDefaults = Value.Default(AlertRulesFile, structuredClone(data));
  const problems = [...Value.Errors(AlertRulesFile, withDefaults)].map((error) => `${location(error.path)}: ${error.message}`);
  if (problems.length > 0) throw new AlertRulesFileError(file, problems);
  const rules = (withDefaults as AlertRulesFile).rules;
  const seen = new Map<string, number>();
  rules.forEach((spec, index) => {
    for (const problem of ruleProblems(spec)) problems.push(`rules[${index}]${location(problem.path).replace(/^(?=\w)/, '.')}: ${problem.message}`);
    const earlier = seen.get(spec.name);
    if (earlier !== undefined) problems.push(`rules[${index}].name: "${spec.name}" is also the name of rules[${earlier}] (names identify file rules)`);
    seen.set(spec.name, index);
  });
  if (problems.length > 0) throw new AlertRulesFileError(file, problems);
  return rules.map((spec) => ({ id: fileRuleId(spec.name), spec }));
}

export function readRulesFile(file: string): Array<{ id: string; spec: AlertRuleSpec }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AlertRulesFileError(file, [`cannot be read: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return parseRulesFile(file, text);
}

/** Rules in the file format (what "export" downloads): ids and sources left out. */
export function exportRules(rules: readonly AlertRule[], format: 'yaml' | 'json'): string {
  const file: AlertRulesFile = {
    version: 1,
    rules: rules.map(({ id: _id, source: _source, ...spec }) => spec),
  };
  return format === 'json' ? `${JSON.stringify(file, null, 2)}\n` : stringifyYaml(file);
}
