// What the differential tests compare: the engine's matches and a SQL target's rows, event by event, over
// the SigmaHQ regression events (decoded as the engine reads them) plus events from the engine's own
// generators. Events are restricted to scalar fields: a field holding an array or an object is outside
// what the SQL backends express (README, sigmad convert).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { loadCorpus, placeholderValues } from '../../../scripts/conformance/conformance.js';
import { loadRegressionCases } from '../../../scripts/conformance/regression-cases.js';
import type { DetectionRule } from '../../../sigma/ast.js';
import { compileRules, type Engine } from '../../../sigma/engine/index.js';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import { buildTimestampFields } from '../../../sigma/correlation/index.js';
import { buildRuleSet, type RuleSet } from '../../../sigma/rule-set.js';
import { convertRules, type Conversion, type SqlTarget } from '../../../sigma/sql/index.js';
import { event as generatedEvent, rules as generatedRules } from '../engine/arbitraries.js';
import type { TableEvent } from '../../../scripts/sql/databases.js';

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Keeps scalar fields, and the object under `c` when its members are scalars, so the generators' dotted
 * field `c.d` still meets nested objects (it is read as a leaf, never as a whole object).
 */
function scalarEvent(e: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (isScalar(v)) out[k] = v;
    else if (k === 'c' && typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isScalar)) out[k] = v;
  }
  return out;
}

const SQL_OPTIONS = { table: 'security_events', timestampField: 'time', jsonField: 'data' } as const;

export interface CorpusFixture {
  readonly detections: readonly DetectionRule[];
  readonly events: readonly TableEvent[];
  /** Engine matches: rule → sorted event ids. */
  readonly expected: ReadonlyMap<DetectionRule, readonly number[]>;
}

function engineMatches(engine: Engine, events: readonly TableEvent[]): Map<DetectionRule, number[]> {
  const expected = new Map<DetectionRule, number[]>();
  for (const e of events) {
    for (const m of engine.evaluate(e.data as Record<string, unknown>)) {
      const ids = expected.get(m.rule.rule) ?? [];
      ids.push(e.id);
      expected.set(m.rule.rule, ids);
    }
  }
  return expected;
}

export async function corpusFixture(): Promise<CorpusFixture> {
  const [corpus, cases] = await Promise.all([loadCorpus([placeholderValues()]), loadRegressionCases()]);
  const regression = cases.flatMap((c) => c.decoded);
  const generated = fc.sample(generatedEvent, { numRuns: 300, seed: 23 }).map(scalarEvent);
  const events = [...regression, ...generated].map((data, i) => ({ id: i + 1, data }));
  const engine = corpus.ruleSet.engine;
  return { detections: engine.rules.map((r) => r.rule), events, expected: engineMatches(engine, events) };
}

export function convertCorpus(fixture: CorpusFixture, target: SqlTarget): Conversion {
  return convertRules({ detections: fixture.detections, correlations: [] }, target, SQL_OPTIONS);
}

/** `title: engine [ids] sql [ids]` for every converted rule whose rows differ from the engine's matches. */
export function differences(
  conversion: Conversion,
  expected: ReadonlyMap<DetectionRule, readonly number[]>,
  actual: readonly (readonly number[] | string)[],
  events: readonly TableEvent[] = [],
): string[] {
  return conversion.converted.flatMap((q, i) => {
    const want = expected.get(q.rule as DetectionRule) ?? [];
    const got = actual[i] ?? [];
    const shown = typeof got === 'string' ? got : `[${got.join()}]`;
    if (typeof got !== 'string' && want.join() === got.join()) return [];
    // The events only one side returned, to see why.
    const odd = events.filter((e) => want.includes(e.id) !== (typeof got !== 'string' && got.includes(e.id)));
    return [`${q.title}: engine [${want.join()}] sql ${shown}\n${q.query}\n${odd.map((e) => JSON.stringify(e)).join('\n')}`];
  });
}

/**
 * Characters outside the BMP become U+FFFD: the engine's regexes (JavaScript, without `u`) see one as two
 * UTF-16 units, the databases as one character, so `a.b` differs on them (README, convert, Limits).
 */
const withinBmp = (e: Record<string, unknown>): Record<string, unknown> =>
  JSON.parse(JSON.stringify(e).replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD')) as Record<string, unknown>;

/** Generated rule sets and scalar events (the engine's generators), for the property tests. */
export const generatedCase = fc.record({
  rules: generatedRules,
  events: fc.array(generatedEvent.map(scalarEvent).map(withinBmp), { minLength: 1, maxLength: 6 }),
});

// Regex atoms whose JavaScript meaning a database spells differently (sets, word boundaries, line
// terminators, identity escapes that are ARE escapes), and subjects with the characters that tell them apart.
const REGEX_ATOMS = [
  'a', 'é', '.', '\\b', '\\B', '\\w', '\\W', '\\s', '\\S', '\\d', '\\D', '[^a]', '[\\w-]', '[\\s\\d]', '[\\b]',
  '\\x41', '\\u00e9', '\\e', '\\y', '\\m', '^', '$', 'a*', '(?:a|é)', '\\.', '\\n',
];
const SUBJECT_PIECES = ['a', 'A', 'é', 'É', '_', '1', '\u0663', ' ', '\u00a0', '\u2003', '\n', '\r', '\u2028', '\t', '-', 'e', 'y', 'm', '.', '\b'];

/** One `re` rule per generated pattern on field B, and events whose B is made of SUBJECT_PIECES. */
export const regexCase = fc.record({
  patterns: fc.array(
    fc.record({ pattern: fc.array(fc.constantFrom(...REGEX_ATOMS), { minLength: 1, maxLength: 4 }).map((a) => a.join('')), i: fc.boolean(), m: fc.boolean(), s: fc.boolean() }),
    { minLength: 1, maxLength: 4 },
  ),
  events: fc.array(fc.array(fc.constantFrom(...SUBJECT_PIECES), { maxLength: 4 }).map((p) => ({ B: p.join('') })), { minLength: 1, maxLength: 6 }),
}).map(({ patterns, events }) => ({
  events,
  rules: patterns.map(({ pattern, i, m, s }, doc): DetectionRule => ({
    kind: 'detection', file: 'generated.yml', doc, title: `regex ${doc}`, id: `id-${doc}`,
    tags: [], custom: {}, logsource: {}, condition: ['sel'],
    detections: new Map([['sel', { kind: 'detection', linking: 'and', children: [{ kind: 'item', field: 'B', modifiers: [], original: [], values: [{ kind: 'regex', pattern, flags: { i, m, s } }], linking: 'or', negated: false }] }]]),
  })),
}));

export interface GeneratedComparison {
  readonly conversion: Conversion;
  readonly events: readonly TableEvent[];
  readonly expected: ReadonlyMap<DetectionRule, readonly number[]>;
}

/** Compile with the engine, convert what compiled, and the engine's matches to compare the rows with. */
export function generatedComparison(rules: readonly DetectionRule[], events: readonly Record<string, unknown>[], target: SqlTarget): GeneratedComparison {
  const { engine } = compileRules(rules);
  const rows = events.map((data, i) => ({ id: i + 1, data }));
  const conversion = convertRules({ detections: engine.rules.map((r) => r.rule), correlations: [] }, target, SQL_OPTIONS);
  return { conversion, events: rows, expected: engineMatches(engine, rows) };
}

const CORRELATION_RULES = new URL('../../fixtures/convert/correlations.yml', import.meta.url);

const at = (minute: number): string => new Date(Date.UTC(2024, 6, 10, 12, minute)).toISOString();
const logon = (id: number, minute: number, eventId: number, user: string, host: string): TableEvent => ({
  id,
  data: { EventID: eventId, User: user, Host: host, Size: 100, time: at(minute) },
});

/**
 * Correlations over a small logon story: alice fails three times on two hosts within 10 minutes, then
 * logs on; bob fails twice; carol fails three times over 30 minutes, then logs on 20 minutes later.
 */
export const CORRELATION_EVENTS: readonly TableEvent[] = [
  logon(1, 0, 4625, 'alice', 'h1'),
  logon(2, 1, 4625, 'alice', 'h2'),
  logon(3, 2, 4625, 'alice', 'h1'),
  logon(4, 3, 4624, 'alice', 'h1'),
  logon(5, 0, 4625, 'bob', 'h1'),
  logon(6, 5, 4625, 'bob', 'h1'),
  logon(7, 0, 4625, 'carol', 'h3'),
  logon(8, 15, 4625, 'carol', 'h3'),
  logon(9, 30, 4625, 'carol', 'h3'),
  logon(10, 50, 4624, 'carol', 'h3'),
];

/** What each correlation must return for CORRELATION_EVENTS: title → the users (group keys) that fire. */
export const CORRELATION_EXPECTED: Readonly<Record<string, readonly string[]>> = {
  'Many failed logons': ['alice'],
  'Failed logons on many hosts': ['alice'],
  'Logon after failures': ['alice'],
  'Failed logon volume': ['alice'],
  'Failed logon average size': ['alice', 'bob', 'carol'],
  'Failure and logon together': ['alice'],
};

function correlationRuleSet(): RuleSet {
  const ruleSet = buildRuleSet([{ file: 'correlations.yml', text: readFileSync(CORRELATION_RULES, 'utf8') }]);
  if (ruleSet.errors.length > 0) throw new Error(ruleSet.errors.join('\n'));
  return ruleSet;
}

/** The groups the engine's correlation runtime fires on CORRELATION_EVENTS (event time from `time`). */
export function engineCorrelationGroups(): Record<string, string[]> {
  const ruleSet = correlationRuleSet();
  const runtime = new CorrelationRuntime(ruleSet.correlations.correlations, {
    timestampFields: buildTimestampFields(['time'], ruleSet.correlations.ruleTimestampFields),
    timestampFallback: 'skip',
    maxStateEntries: 1000,
    onNotice: () => undefined,
  });
  const fired: Record<string, Set<string>> = {};
  const inTimeOrder = [...CORRELATION_EVENTS].sort((a, b) => ((a.data as { time: string }).time < (b.data as { time: string }).time ? -1 : 1));
  for (const e of inTimeOrder) {
    const event = e.data as Record<string, unknown>;
    const matched = ruleSet.engine.evaluate(event).map((m) => ({ id: m.rule.id, name: m.rule.rule.name }));
    for (const r of runtime.onEvent(matched, event, 0)) {
      for (const [, user] of r.group_key) (fired[r.rule_title] ??= new Set()).add(String(user));
    }
  }
  return Object.fromEntries(Object.entries(fired).map(([k, v]) => [k, [...v].sort()]));
}

export function convertCorrelations(target: SqlTarget): Conversion {
  const ruleSet = correlationRuleSet();
  const input = { detections: ruleSet.engine.rules.map((r) => r.rule), correlations: ruleSet.correlations.correlations };
  return convertRules(input, target, SQL_OPTIONS);
}
