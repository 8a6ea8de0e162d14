// Correlations as SQL over the referenced rules' matches (one CTE per rule): counting and value types
// slide a window of `timespan` ending at each match of the group (GROUP BY … HAVING), `temporal_ordered`
// chains the rules' matches in order within the timespan. Only detection rules may be referenced.
import type { ConditionOp, DetectionRule } from '../ast.js';
import type { CompiledCorrelation } from '../correlation/index.js';
import type { Dialect } from './dialect.js';
import { rulePredicate } from './detection-sql.js';
import { junction, sqlNumber, Unconvertible } from './sql-text.js';

const OPS: Readonly<Record<ConditionOp, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=', neq: '<>' };

export type FindDetection = (ref: { readonly id?: string; readonly name?: string }) => DetectionRule | undefined;

function having(expr: string, ops: Readonly<Partial<Record<ConditionOp, number>>>): string {
  return junction('AND', Object.entries(ops).map(([op, n]) => `${expr} ${OPS[op as ConditionOp]} ${sqlNumber(n)}`));
}

function aggregate(c: CompiledCorrelation, dialect: Dialect): string {
  switch (c.type) {
    case 'event_count':
      return 'count(*)';
    case 'value_count':
      return 'count(DISTINCT w.v)';
    case 'value_sum':
      return 'sum(w.n)';
    case 'value_avg':
      return 'avg(w.n)';
    case 'value_percentile':
    case 'value_median':
      if (dialect.target === 'sqlite') throw new Unconvertible(`${c.type} has no SQLite form (no percentile aggregate)`);
      return `percentile_cont(${c.percentile / 100}) WITHIN GROUP (ORDER BY w.n)`;
    case 'temporal':
      return 'count(DISTINCT w.r)';
    case 'temporal_ordered':
      throw new Error('temporal_ordered is a chain, not an aggregate');
    default: {
      const never: never = c.type;
      throw new Error(`unknown correlation type ${String(never)}`);
    }
  }
}

/** `WITH r0 AS (...), r1 AS (...)`: time, group keys, value and rule index of every match. */
function matchCtes(c: CompiledCorrelation, dialect: Dialect, find: FindDetection): string[] {
  if (c.valueFields.length > 1) throw new Unconvertible('value_count over several fields has no SQL form here');
  return c.refs.map((ref, i) => {
    if (ref.target.kind !== 'detection') throw new Unconvertible('correlations of correlations have no SQL form here');
    const rule = find(ref.target);
    if (rule === undefined) throw new Unconvertible(`referenced rule ${ref.ref} did not convert`);
    const groups = c.groupFields.map((fields, k) => `${dialect.field(fields[i] as string).text} AS g${k}`);
    const valueField = c.valueFields[0]?.[i];
    const value = valueField === undefined ? ['NULL AS v', 'NULL AS n'] : [`${dialect.field(valueField).text} AS v`, `${dialect.numeric(dialect.field(valueField).text)} AS n`];
    const columns = [`${dialect.timeMs()} AS t`, ...groups, ...value, `${i} AS r`];
    return `r${i} AS (SELECT ${columns.join(', ')} FROM ${dialect.relation} WHERE ${rulePredicate(dialect, rule)})`;
  });
}

function sameGroup(c: CompiledCorrelation, a: string, b: string, dialect: Dialect): string[] {
  const same = dialect.target === 'postgres' ? 'IS NOT DISTINCT FROM' : 'IS';
  return c.groupBy.map((_, k) => `${b}.g${k} ${same} ${a}.g${k}`);
}

/** One SELECT (with its CTEs) returning a row per firing: group keys, window end and the aggregate. */
export function correlationQuery(c: CompiledCorrelation, dialect: Dialect, find: FindDetection): string {
  if (c.ruleSetTest !== null) throw new Unconvertible('temporal conditions over rule expressions have no SQL form here');
  const ctes = matchCtes(c, dialect, find);
  const span = sqlNumber(c.timespanMs);
  const groupCols = (alias: string): string[] => c.groupBy.map((name, k) => `${alias}.g${k} AS "${name.replaceAll('"', '""')}"`);
  if (c.type === 'temporal_ordered') {
    const joins = c.refs.slice(1).map((_, j) => {
      const i = j + 1;
      return `JOIN r${i} e${i} ON ${junction('AND', [...sameGroup(c, 'e0', `e${i}`, dialect), `e${i}.t >= e${j}.t`, `e${i}.t <= e0.t + ${span}`])}`;
    });
    const select = [...groupCols('e0'), 'e0.t AS window_start', `e${c.refs.length - 1}.t AS window_end`];
    return `WITH ${ctes.join(',\n')}\nSELECT DISTINCT ${select.join(', ')}\nFROM r0 e0 ${joins.join(' ')}`;
  }
  const matches = `m AS (${c.refs.map((_, i) => `SELECT * FROM r${i}`).join(' UNION ALL ')})`;
  const agg = aggregate(c, dialect);
  const window = junction('AND', [...sameGroup(c, 'e', 'w', dialect), `w.t > e.t - ${span}`, `w.t <= e.t`]);
  const groupBy = [...c.groupBy.map((_, k) => `e.g${k}`), 'e.t'];
  return [
    `WITH ${[...ctes, matches].join(',\n')}`,
    `SELECT ${[...groupCols('e'), 'e.t AS window_end', `${agg} AS value`].join(', ')}`,
    `FROM m e JOIN m w ON ${window}`,
    `GROUP BY ${groupBy.join(', ')}`,
    `HAVING ${having(agg, c.ops)}`,
  ].join('\n');
}
