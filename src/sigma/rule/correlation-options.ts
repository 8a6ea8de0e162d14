// Engine extension knobs of a correlation (daemon-semantics §19): written under `correlation:` or as
// `svc.<key>` custom attributes; the `correlation:` section wins.
import Type from 'typebox';
import Compile from 'typebox/compile';
import type { DocumentContext } from './document-context.js';
import { setOwn } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { schemaProblems } from './schema-problems.js';
import { parseTimespan } from './timespan.js';

const Count = (minimum: 0 | 1) =>
  Type.Union([Type.Integer({ minimum }), Type.String({ pattern: minimum === 0 ? '^[0-9]+$' : '^[1-9][0-9]*$' })]);
const WindowMode = Type.Union([Type.Literal('sliding'), Type.Literal('tumbling'), Type.Literal('session')]);
const FireAction = Type.Union([Type.Literal('alert'), Type.Literal('reset')]);
const EventMode = Type.Union([Type.Literal('none'), Type.Literal('full'), Type.Literal('refs')]);

/** The keys as written in rules (snake_case, timespans as text). */
export const CorrelationOptionsSource = Type.Object({
  window: Type.Optional(WindowMode),
  gap: Type.Optional(Type.String()),
  action: Type.Optional(FireAction),
  suppress: Type.Optional(Type.String()),
  max_group_entries: Type.Optional(Count(1)),
  correlation_event_mode: Type.Optional(EventMode),
  max_correlation_events: Type.Optional(Count(0)),
});
type OptionsSource = Type.Static<typeof CorrelationOptionsSource>;

/** What lands in `CorrelationRule.options`: resolved values, durations in milliseconds. */
export const CorrelationOptionsSchema = Type.Object({
  window: Type.Optional(WindowMode),
  gapMs: Type.Optional(Type.Integer({ minimum: 1 })),
  action: Type.Optional(FireAction),
  suppressMs: Type.Optional(Type.Integer({ minimum: 1 })),
  maxGroupEntries: Type.Optional(Type.Integer({ minimum: 1 })),
  correlationEventMode: Type.Optional(EventMode),
  maxCorrelationEvents: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type CorrelationOptions = Type.Static<typeof CorrelationOptionsSchema>;

const checkSource = Compile(CorrelationOptionsSource);
const OPTION_KEYS = Object.keys(CorrelationOptionsSource.properties) as (keyof OptionsSource)[];
export const CUSTOM_ATTRIBUTE_PREFIX = 'svc.';

export function collectCorrelationOptions(
  section: OptionsSource,
  custom: Readonly<Record<string, unknown>>,
  ctx: DocumentContext,
): CorrelationOptions | undefined {
  const fromCustom: PlainObject = {};
  for (const key of OPTION_KEYS) {
    const attr = `${CUSTOM_ATTRIBUTE_PREFIX}${key}`;
    if (section[key] === undefined && Object.hasOwn(custom, attr)) setOwn(fromCustom, key, custom[attr]);
  }
  const problems = schemaProblems(checkSource, fromCustom);
  for (const p of problems) {
    const [key, ...rest] = p.path;
    ctx.error('correlation', 'InvalidOption', p.message, [`${CUSTOM_ATTRIBUTE_PREFIX}${String(key)}`, ...rest]);
  }
  // Keep checking after a shape problem so every bad option is reported at once.
  const valid = checkSource.Check(fromCustom);
  const src: OptionsSource = { ...(valid ? fromCustom : {}), ...definedOnly(section) };
  const where = (key: keyof OptionsSource) =>
    section[key] !== undefined ? ['correlation', key] : [`${CUSTOM_ATTRIBUTE_PREFIX}${key}`];
  const duration = (key: 'gap' | 'suppress'): number | undefined => {
    const text = src[key] ?? fromCustom[key];
    if (typeof text !== 'string') return undefined;
    const ms = parseTimespan(text);
    if (ms === undefined) ctx.error('correlation', 'InvalidOption', `'${text}' is not a timespan`, where(key));
    return ms;
  };
  const gapMs = duration('gap');
  const suppressMs = duration('suppress');
  if (src.window === 'session' && gapMs === undefined) ctx.warn('SessionWithoutGap', "a session window without 'gap' only closes on timespan", where('window'));
  if (src.window !== 'session' && gapMs !== undefined) ctx.warn('GapIgnored', "'gap' only applies to session windows", where('gap'));
  if (!valid) return undefined;
  const opts: CorrelationOptions = {
    ...(src.window !== undefined ? { window: src.window } : {}),
    ...(gapMs !== undefined ? { gapMs } : {}),
    ...(src.action !== undefined ? { action: src.action } : {}),
    ...(suppressMs !== undefined ? { suppressMs } : {}),
    ...(src.max_group_entries !== undefined ? { maxGroupEntries: Number(src.max_group_entries) } : {}),
    ...(src.correlation_event_mode !== undefined ? { correlationEventMode: src.correlation_event_mode } : {}),
    ...(src.max_correlation_events !== undefined ? { maxCorrelationEvents: Number(src.max_correlation_events) } : {}),
  };
  return opts;
}

function definedOnly(section: OptionsSource): OptionsSource {
  const out: PlainObject = {};
  for (const key of OPTION_KEYS) if (section[key] !== undefined) setOwn(out, key, section[key]);
  return out as OptionsSource;
}
