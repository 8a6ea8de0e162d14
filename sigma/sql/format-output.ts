// How converted queries are written out: SQL text (each query after a comment naming the rule), views,
// or one JSON object per line for tooling.
import type { SqlTarget } from './dialect.js';
import type { ConvertedRule } from './convert-rules.js';

export type OutputFormat = 'default' | 'view' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['default', 'view', 'json'];

/** A view name from the rule id (or title): `sigma_` and the rest made identifier-safe. */
function viewName(rule: ConvertedRule): string {
  return `sigma_${(rule.ruleId ?? rule.title).replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 63);
}

function comment(rule: ConvertedRule): string {
  // A line break in a title would end the comment early.
  return `-- ${rule.ruleId ?? '(no id)'}: ${rule.title.replace(/[\r\n]+/g, ' ')}`;
}

export function formatQuery(rule: ConvertedRule, format: OutputFormat, target: SqlTarget): string {
  if (format === 'json') return `${JSON.stringify({ rule_id: rule.ruleId, title: rule.title, query: rule.query })}\n`;
  if (format === 'default') return `${comment(rule)}\n${rule.query};\n\n`;
  const name = `"${viewName(rule)}"`;
  // SQLite has no CREATE OR REPLACE VIEW.
  const create = target === 'postgres' ? `CREATE OR REPLACE VIEW ${name} AS` : `DROP VIEW IF EXISTS ${name};\nCREATE VIEW ${name} AS`;
  return `${comment(rule)}\n${create}\n${rule.query};\n\n`;
}
