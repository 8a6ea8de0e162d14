// The conversion's own contract, without a database: escaping, identifiers, skipped rules and their
// reasons, per-rule table overrides and the output formats.
import { describe, expect, it } from 'vitest';
import { buildRuleSet } from '../../../sigma/rule-set.js';
import { CORRELATION_EXPECTED, engineCorrelationGroups } from './differential.js';
import { checkConvertOptions, convertRules, formatQuery, InvalidIdentifier, type SqlTarget } from '../../../sigma/sql/index.js';

/** `jsonField` null: fields are columns. */
function convert(yaml: string, target: SqlTarget, jsonField: string | null = 'data') {
  const ruleSet = buildRuleSet([{ file: 'test.yml', text: yaml }]);
  expect(ruleSet.errors.map(String)).toEqual([]);
  const input = { detections: ruleSet.engine.rules.map((r) => r.rule), correlations: ruleSet.correlations.correlations };
  return convertRules(input, target, { table: 'security_events', timestampField: 'time', ...(jsonField !== null ? { jsonField } : {}) });
}

const rule = (detection: string, extra = ''): string => `title: T
id: 11111111-2222-3333-4444-555555555555
logsource: {product: windows}
${extra}detection:
${detection}
  condition: sel
`;

describe('convertRules', () => {
  it('escapes LIKE wildcards, quotes and backslashes in values', () => {
    const { converted } = convert(rule("  sel:\n    CommandLine|contains: \"50%_it's\\\\x\""), 'postgres');
    expect(converted[0]?.query).toContain(`ILIKE '%50\\%\\_it''s\\\\x%' ESCAPE '\\'`);
  });

  it('keeps the case of |cased values and folds the others', () => {
    const { converted } = convert(rule('  sel:\n    A|cased|startswith: AbC\n    B|startswith: AbC'), 'sqlite');
    expect(converted[0]?.query).toMatch(/json_extract\("data", '\$\."A"'\) END GLOB 'AbC\*'/);
    expect(converted[0]?.query).toMatch(/lower\(.*"B".*\) GLOB 'abc\*'/);
  });

  it('writes windash positions as a character class of the five dashes', () => {
    const { converted } = convert(rule('  sel:\n    CommandLine|windash|contains: " -enc "'), 'postgres');
    expect(converted[0]?.query).toContain('[-/\\u2013\\u2014\\u2015]');
  });

  it('reports a field failing the identifier pattern as InvalidIdentifier naming the field and the rule', () => {
    const { converted, skipped } = convert(rule('  sel:\n    Event.Data: x'), 'postgres', null);
    expect(converted).toEqual([]);
    expect(skipped[0]?.invalidIdentifier).toBe(true);
    expect(skipped[0]?.reason).toMatch(/InvalidIdentifier: field 'Event\.Data'.*rule 11111111-2222-3333-4444-555555555555/);
  });

  it('refuses a table name failing the identifier pattern', () => {
    expect(() => checkConvertOptions({ table: 'bad-name', timestampField: 'time' })).toThrow(InvalidIdentifier);
  });

  it('skips what a target cannot say, with the reason', () => {
    const { skipped } = convert(rule('  sel:\n    DestinationIp|cidr: 10.0.0.0/8'), 'sqlite');
    expect(skipped.map((s) => s.reason)).toEqual(['cidr has no SQLite form (no network type)']);
  });

  it('refuses a regex escape of half a UTF-16 pair on both targets (a UTF-8 database has no such character)', () => {
    for (const [target, name] of [['postgres', 'PostgreSQL'], ['sqlite', 'SQLite']] as const) {
      const { converted, skipped } = convert(rule(String.raw`  sel:
    Image|re: 'a\ud83d'`), target);
      expect(converted).toEqual([]);
      expect(skipped.map((s) => s.reason)).toEqual([String.raw`regex escape \ud83d (half of a UTF-16 pair) has no ${name} form`]);
    }
    expect(convert(rule(String.raw`  sel:
    Image|re: 'a\u00e9'`), 'postgres').skipped).toEqual([]);
  });

  it('reads the table and schema from postgres.* custom attributes', () => {
    const { converted } = convert(rule('  sel:\n    A: x', 'postgres.table: sysmon\npostgres.schema: logs\n'), 'postgres');
    expect(converted[0]?.query).toMatch(/^SELECT \* FROM "logs"\."sysmon" WHERE/);
  });

  it('formats views per target and JSON lines', () => {
    const [q] = convert(rule('  sel:\n    A: x'), 'postgres').converted;
    if (q === undefined) throw new Error('nothing converted');
    expect(formatQuery(q, 'view', 'postgres')).toMatch(/^-- 11111111-2222-3333-4444-555555555555: T\nCREATE OR REPLACE VIEW "sigma_11111111_2222_3333_4444_555555555555" AS\nSELECT/);
    expect(formatQuery(q, 'view', 'sqlite')).toContain('DROP VIEW IF EXISTS "sigma_11111111_2222_3333_4444_555555555555";\nCREATE VIEW');
    expect(JSON.parse(formatQuery(q, 'json', 'postgres'))).toEqual({ rule_id: q.ruleId, title: 'T', query: q.query });
  });

  it('aggregates percentiles on PostgreSQL and says SQLite has none', () => {
    const yaml = `${rule('  sel:\n    A: x').replace('id: 1111', 'name: base\nid: 1111')}---
title: P
correlation:
  type: value_percentile
  rules: [base]
  group-by: [User]
  timespan: 5m
  percentile: 90
  condition:
    gt: 100
    field: Bytes
`;
    const pg = convert(yaml, 'postgres').converted.find((c) => c.kind === 'correlation');
    expect(pg?.query).toContain('percentile_cont(0.9) WITHIN GROUP (ORDER BY w.n)');
    expect(convert(yaml, 'sqlite').skipped.map((s) => s.reason)).toEqual(['value_percentile has no SQLite form (no percentile aggregate)']);
  });

  it('expects of the correlation fixture exactly what the engine fires (the SQL tests hold the queries to it)', () => {
    expect(engineCorrelationGroups()).toEqual(CORRELATION_EXPECTED);
  });
});
