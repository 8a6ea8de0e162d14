import type { AlertPipelineFile, SilenceSpec } from '../../protocol/index.js';
import { parseDuration } from '../../protocol/index.js';
import { compileMatchers } from './matchers.js';
import type { CompiledMatcher } from './matchers.js';
import { AlertConfigError, parseSelectors } from './selectors.js';
import type { AlertResult, Selector } from './selectors.js';

/** Levels in rising order (§9.6 `max_level`). */
export const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;

export interface DedupConfig {
  readonly fingerprint: readonly Selector[];
  readonly repeatInterval: number;
  readonly resolveTimeout: number;
  readonly maxActiveAlerts: number;
}

export interface GroupConfig {
  readonly mode: 'group_by' | 'entity_graph';
  readonly by: readonly Selector[];
  readonly entities: readonly Selector[];
  readonly groupWait: number;
  readonly groupInterval: number;
  readonly repeatInterval: number;
  readonly resolveTimeout: number;
  readonly include: 'refs' | 'results';
  readonly maxOpenIncidents: number;
  readonly maxEntitiesPerIncident: number;
  readonly maxResultsPerIncident: number;
  readonly maxValueCardinality: number;
  readonly stopValues: ReadonlySet<string>;
}

export interface InhibitRule {
  readonly name: string;
  readonly source: readonly CompiledMatcher[];
  readonly target: readonly CompiledMatcher[];
  readonly equal: readonly Selector[];
  readonly duration: number;
}

/** A silence in the store; times are UNIX seconds. */
export interface Silence {
  readonly id: string;
  readonly matchers: SilenceSpec['matchers'];
  readonly starts_at?: number;
  readonly ends_at?: number;
  readonly created_by?: string;
  readonly comment?: string;
  readonly origin: 'static' | 'api';
}

/** A loaded alert pipeline: every duration in whole seconds, every selector and matcher compiled. */
export interface AlertConfig {
  readonly stripEvent: boolean;
  readonly inScope: (result: AlertResult) => boolean;
  readonly dedup?: DedupConfig;
  readonly group?: GroupConfig;
  readonly silences: readonly Silence[];
  readonly maxSilences: number;
  readonly inhibitRules: readonly InhibitRule[];
}

export const DEFAULT_MAX_SILENCES = 1000;

/** Humantime truncated to whole seconds (§0); the error names the key. */
export function seconds(text: string | undefined, fallback: number, key: string): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined) throw new AlertConfigError(`${key}: '${text}' is not a duration (e.g. 30s, 5m, 1h30m)`);
  return Math.floor(ms / 1000);
}

/** RFC 3339 text to UNIX seconds; the error names the field. */
export function rfc3339Seconds(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new AlertConfigError(`${field}: '${text}' is not an RFC 3339 time`);
  return Math.floor(ms / 1000);
}

/** Checks a silence spec and converts its times; `id` is the one to use when the spec has none. */
export function compileSilence(spec: SilenceSpec, origin: Silence['origin'], id: string, where: string): Silence {
  compileMatchers(spec.matchers, `${where}.matchers`);
  const starts = rfc3339Seconds(spec.starts_at, `${where}.starts_at`);
  const ends = rfc3339Seconds(spec.ends_at, `${where}.ends_at`);
  if (starts !== undefined && ends !== undefined && ends <= starts) throw new AlertConfigError(`${where}.ends_at: must be after starts_at`);
  return {
    id: spec.id ?? id,
    matchers: spec.matchers,
    ...(starts !== undefined ? { starts_at: starts } : {}),
    ...(ends !== undefined ? { ends_at: ends } : {}),
    ...(spec.created_by !== undefined ? { created_by: spec.created_by } : {}),
    ...(spec.comment !== undefined ? { comment: spec.comment } : {}),
    origin,
  };
}

function globRegex(glob: string): RegExp {
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') src += '.*';
    else if (c === '?') src += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) throw new AlertConfigError(`scope.rules: invalid glob '${glob}' (unclosed [)`);
      src += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
      i = end;
    } else src += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, 'su');
}

/** The scope filter of §7.4: populated axes ANDed, an empty scope admits everything. */
export function compileScope(scope: AlertPipelineFile['scope']): (result: AlertResult) => boolean {
  const rules = scope?.rules ?? [];
  const tags = scope?.tags ?? [];
  const levels = scope?.levels ?? [];
  for (const l of levels) if (!(LEVELS as readonly string[]).includes(l)) throw new AlertConfigError(`scope.levels: unknown level '${l}'`);
  const ids = new Set(rules.filter((r) => !/[*?[]/.test(r)));
  const globs = rules.filter((r) => /[*?[]/.test(r)).map(globRegex);
  const tagTests = tags.map((t): ((tag: string) => boolean) => {
    if (t.endsWith('.*')) return (tag) => tag.startsWith(t.slice(0, -2));
    if (t.endsWith('*')) return (tag) => tag.startsWith(t.slice(0, -1));
    return (tag) => tag === t;
  });
  const levelSet = new Set(levels);
  return (result) => {
    if (rules.length > 0) {
      const id = result['rule_id'];
      const title = String(result['rule_title'] ?? '');
      if (!(typeof id === 'string' && ids.has(id)) && !globs.some((g) => g.test(title))) return false;
    }
    if (tags.length > 0) {
      const own = Array.isArray(result['tags']) ? (result['tags'] as unknown[]) : [];
      if (!own.some((tag) => typeof tag === 'string' && tagTests.some((test) => test(tag)))) return false;
    }
    if (levels.length > 0) {
      const level = result['level'];
      if (typeof level !== 'string' || !levelSet.has(level.toLowerCase())) return false;
    }
    return true;
  };
}

function nonEmpty(list: readonly string[] | undefined, key: string): readonly string[] {
  if (list === undefined || list.length === 0) throw new AlertConfigError(`${key}: must be a non-empty list of selectors`);
  return list;
}

/** Compiles a schema-checked pipeline file. Throws AlertConfigError naming the key at fault. */
export function compileAlertConfig(file: AlertPipelineFile): AlertConfig {
  const d = file.dedup;
  const g = file.group;
  const mode = g?.mode ?? 'group_by';
  const caps = g?.caps ?? {};
  return {
    stripEvent: file.strip_event ?? false,
    inScope: compileScope(file.scope),
    ...(d !== undefined
      ? {
          dedup: {
            fingerprint: parseSelectors(nonEmpty(d.fingerprint, 'dedup.fingerprint'), 'dedup.fingerprint'),
            repeatInterval: seconds(d.repeat_interval, 0, 'dedup.repeat_interval'),
            resolveTimeout: seconds(d.resolve_timeout, 3600, 'dedup.resolve_timeout'),
            maxActiveAlerts: d.max_active_alerts ?? 100_000,
          },
        }
      : {}),
    ...(g !== undefined
      ? {
          group: {
            mode,
            by: mode === 'group_by' ? parseSelectors(nonEmpty(g.by, 'group.by'), 'group.by') : [],
            entities: mode === 'entity_graph' ? parseSelectors(nonEmpty(g.entities, 'group.entities'), 'group.entities') : [],
            groupWait: seconds(g.group_wait, 30, 'group.group_wait'),
            groupInterval: seconds(g.group_interval, 300, 'group.group_interval'),
            repeatInterval: seconds(g.repeat_interval, 0, 'group.repeat_interval'),
            resolveTimeout: seconds(g.resolve_timeout, 3600, 'group.resolve_timeout'),
            include: g.include ?? 'refs',
            maxOpenIncidents: caps.max_open_incidents ?? 10_000,
            maxEntitiesPerIncident: caps.max_entities_per_incident ?? 1000,
            maxResultsPerIncident: caps.max_results_per_incident ?? 1000,
            maxValueCardinality: caps.max_value_cardinality ?? 10_000,
            stopValues: new Set(g.stop_values ?? []),
          },
        }
      : {}),
    silences: (file.silences ?? []).map((s, i) => compileSilence(s, 'static', `static-${i}`, `silences[${i}]`)),
    maxSilences: file.max_silences ?? DEFAULT_MAX_SILENCES,
    inhibitRules: (file.inhibit_rules ?? []).map((r, i) => ({
      name: r.name ?? `inhibit_rule_${i}`,
      source: compileMatchers(r.source_match, `inhibit_rules[${i}].source_match`),
      target: compileMatchers(r.target_match, `inhibit_rules[${i}].target_match`),
      equal: parseSelectors(r.equal ?? [], `inhibit_rules[${i}].equal`),
      duration: seconds(r.duration, 300, `inhibit_rules[${i}].duration`),
    })),
  };
}

