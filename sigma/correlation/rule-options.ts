import Type from 'typebox';
import type { SigmaWarning } from '../errors.js';
import { SigmaError } from '../errors.js';
import { compileOnUse, parseDuration } from '../../protocol/index.js';
import type { WindowMode } from './window.js';

/** Durations of extension keys use the daemon's duration syntax (`30s`, `5m`, `1h30m`). */
function requireDurationMs(text: string, key: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new SigmaError('correlation', 'bad_duration', `correlation option ${key}: '${text}' is not a duration like 30s or 5m`);
  }
  return ms;
}

export type CorrelationAction = 'alert' | 'reset';
export type CorrelationEventMode = 'none' | 'full' | 'refs';

const Count = Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]*$' })]);

/**
 * Per-correlation extension keys (under `correlation:` or as `svc.<key>` custom attributes). Durations
 * are strings like `5m`; counts may be written as numbers or numeric strings (custom attributes).
 */
export const CorrelationRuleOptionsSchema = Type.Object(
  {
    window: Type.Optional(Type.Union([Type.Literal('sliding'), Type.Literal('tumbling'), Type.Literal('session')])),
    gap: Type.Optional(Type.String()),
    action: Type.Optional(Type.Union([Type.Literal('alert'), Type.Literal('reset')])),
    suppress: Type.Optional(Type.String()),
    max_group_entries: Type.Optional(Count),
    correlation_event_mode: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('full'), Type.Literal('refs')]),
    ),
    max_correlation_events: Type.Optional(Count),
    timestamp_field: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
type CorrelationRuleOptions = Type.Static<typeof CorrelationRuleOptionsSchema>;

const checkOptions = compileOnUse(CorrelationRuleOptionsSchema);
const KNOWN = new Set(Object.keys(CorrelationRuleOptionsSchema.properties));

/** Engine-wide settings (CLI flags / config); a correlation's own options override them. */
export interface CorrelationDefaults {
  readonly action: CorrelationAction;
  /** 0 = no suppression. */
  readonly suppressMs: number;
  readonly eventMode: CorrelationEventMode;
  readonly maxEvents: number;
  /** 0 = no per-group cap. */
  readonly maxGroupEntries: number;
}

export const DEFAULT_CORRELATION_SETTINGS: CorrelationDefaults = {
  action: 'alert',
  suppressMs: 0,
  eventMode: 'none',
  maxEvents: 10,
  maxGroupEntries: 0,
};

/** A correlation's runtime settings after its options were applied over the defaults. */
export interface ResolvedCorrelationOptions extends CorrelationDefaults {
  readonly window: WindowMode;
  readonly gapMs: number;
  readonly timestampField?: string;
}

/**
 * Validate a correlation's extension options (a leading `svc.` is accepted on keys) and resolve them
 * over `defaults`. Unknown keys are warnings (other extensions may share the block); bad values throw.
 */
export function resolveRuleOptions(
  raw: Readonly<Record<string, unknown>>,
  defaults: CorrelationDefaults,
  timespanMs: number,
  warnings: SigmaWarning[],
): ResolvedCorrelationOptions {
  const picked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const key = k.startsWith('svc.') ? k.slice(4) : k;
    if (KNOWN.has(key)) picked[key] = v;
    else warnings.push({ code: 'unknown_correlation_option', message: `ignoring unknown correlation option '${k}'` });
  }
  if (!checkOptions.Check(picked)) {
    const first = [...checkOptions.Errors(picked)][0];
    throw new SigmaError(
      'correlation',
      'bad_option',
      `correlation option ${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`.trim(),
    );
  }
  const o: CorrelationRuleOptions = picked;
  const window = o.window ?? 'sliding';
  if (window === 'session' && o.gap === undefined) {
    throw new SigmaError('correlation', 'missing_gap', "a 'session' window needs a 'gap' duration");
  }
  return {
    window,
    gapMs: o.gap === undefined ? timespanMs : requireDurationMs(o.gap, 'gap'),
    action: o.action ?? defaults.action,
    suppressMs: o.suppress === undefined ? defaults.suppressMs : requireDurationMs(o.suppress, 'suppress'),
    eventMode: o.correlation_event_mode ?? defaults.eventMode,
    maxEvents: o.max_correlation_events === undefined ? defaults.maxEvents : Number(o.max_correlation_events),
    maxGroupEntries: o.max_group_entries === undefined ? defaults.maxGroupEntries : Number(o.max_group_entries),
    ...(o.timestamp_field !== undefined ? { timestampField: o.timestamp_field } : {}),
  };
}
