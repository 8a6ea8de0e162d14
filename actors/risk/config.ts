import type { RiskFile } from '../../protocol/index.js';
import { compileScope, seconds } from '../alert/config.js';
import { AlertConfigError, parseSelectors } from '../alert/selectors.js';
import type { AlertResult, Selector } from '../alert/selectors.js';

/** The accumulator half of a risk config (§8.1 `incident`); durations in whole seconds. */
export interface RiskIncidentConfig {
  readonly window: number;
  readonly scoreThreshold?: number;
  readonly tacticThreshold?: number;
  readonly cooldown: number;
  readonly include: 'refs' | 'results';
  readonly maxOpenEntities: number;
  readonly maxSourcesPerEntity: number;
  readonly maxResultsPerIncident: number;
}

interface RiskObjectSpec {
  readonly type: string;
  readonly selector: Selector;
}

/** A loaded risk config: scope, score resolution and selectors compiled. */
export interface RiskConfig {
  readonly inScope: (result: AlertResult) => boolean;
  readonly stripEvent: boolean;
  readonly scoreAttribute: string;
  /** `[test, score]` per tag pattern, in file order. */
  readonly tagScores: readonly (readonly [(tag: string) => boolean, number])[];
  readonly tagReducer: 'sum' | 'max';
  readonly levelScores: ReadonlyMap<string, number>;
  readonly defaultScore: number;
  readonly objects: readonly RiskObjectSpec[];
  readonly emitRiskEvents: boolean;
  readonly incident?: RiskIncidentConfig;
}

/** §8.1: a pattern ending `.*` is a prefix including the dot (`attack.*` matches `attack.x`, not `attacker`). */
function tagTest(pattern: string): (tag: string) => boolean {
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    return (tag) => tag.startsWith(prefix);
  }
  return (tag) => tag === pattern;
}

/** Compiles a schema-checked risk file. Throws AlertConfigError naming the key at fault. */
export function compileRiskConfig(file: RiskFile): RiskConfig {
  if (file.objects.length === 0) throw new AlertConfigError('objects: at least one {type, selector} is required');
  const selectors = parseSelectors(
    file.objects.map((o) => o.selector),
    'objects',
  );
  const inc = file.incident;
  if (inc !== undefined && inc.score_threshold === undefined && inc.tactic_count_threshold === undefined) {
    throw new AlertConfigError('incident: set score_threshold or tactic_count_threshold');
  }
  const caps = inc?.caps ?? {};
  return {
    inScope: compileScope(file.scope),
    stripEvent: file.strip_event ?? false,
    scoreAttribute: file.score?.attribute ?? 'svc.risk_score',
    tagScores: Object.entries(file.score?.tag_scores ?? {}).map(([p, s]) => [tagTest(p), s] as const),
    tagReducer: file.score?.tag_reducer ?? 'sum',
    levelScores: new Map(Object.entries(file.score?.level_scores ?? {}).map(([l, s]) => [l.toLowerCase(), s])),
    defaultScore: file.score?.default_score ?? 0,
    objects: file.objects.map((o, i) => ({ type: o.type, selector: selectors[i] as Selector })),
    emitRiskEvents: file.emit_risk_events ?? false,
    ...(inc !== undefined
      ? {
          incident: {
            window: seconds(inc.window, 86_400, 'incident.window'),
            ...(inc.score_threshold !== undefined ? { scoreThreshold: inc.score_threshold } : {}),
            ...(inc.tactic_count_threshold !== undefined ? { tacticThreshold: inc.tactic_count_threshold } : {}),
            cooldown: seconds(inc.cooldown, 3600, 'incident.cooldown'),
            include: inc.include ?? 'refs',
            maxOpenEntities: caps.max_open_entities ?? 100_000,
            maxSourcesPerEntity: caps.max_sources_per_entity ?? 1000,
            maxResultsPerIncident: caps.max_results_per_incident ?? 1000,
          },
        }
      : {}),
  };
}
