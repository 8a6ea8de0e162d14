import type {
  CorrelationGroupSnapshot,
  CorrelationSummary,
  CorrelationWindow,
} from '../../protocol/index.js';
import type { CompiledCorrelation } from '../../sigma/index.js';
import { renderGroupKey } from '../../sigma/index.js';
import { earliestOf, latestOf, listsOf, sizeOfEntries } from './entries.js';
import { evaluateGroup } from './reducer.js';
import { toSeconds } from './result.js';
import type { GroupState } from './state.js';
import { markOf, partsOf } from './state.js';

/** `GET /api/v1/correlations` entry of one correlation. */
export function summarize(def: CompiledCorrelation, activeGroups: number): CorrelationSummary {
  const r = def.rule;
  return {
    index: def.index,
    ...(r.id !== undefined ? { id: r.id } : {}),
    ...(r.name !== undefined ? { name: r.name } : {}),
    title: r.title,
    type: def.type,
    timespan_secs: toSeconds(def.timespanMs),
    group_by: [...def.groupBy],
    rule_refs: def.refs.map((x) => x.ref),
    threshold: def.threshold,
    active_groups: activeGroups,
  };
}

function windowOf(g: GroupState): CorrelationWindow {
  const def = g.def;
  const { ts, rules, values } = listsOf(g.entries);
  const secs = ts.map(toSeconds);
  switch (def.aggregate) {
    case 'count':
      return { EventCount: { timestamps: secs } };
    case 'distinct':
      return { ValueCount: { entries: secs.map((t, i) => [t, typeof values[i] === 'string' ? values[i] : null]) } };
    case 'rules':
    case 'ordered': {
      const hits: Record<string, number[]> = {};
      def.refs.forEach((ref, bit) => {
        const times = secs.filter((_, i) => (((rules[i] as number) >>> bit) & 1) === 1);
        if (times.length > 0) hits[ref.ref] = times;
      });
      return { Temporal: { rule_hits: hits } };
    }
    case 'sum':
    case 'avg':
    case 'percentile':
      return { NumericAgg: { entries: secs.map((t, i) => [t, typeof values[i] === 'number' ? values[i] : null]) } };
    default: {
      const never: never = def.aggregate;
      return never;
    }
  }
}

/** `GET /api/v1/correlations/state` entry of one group; times in epoch seconds. */
export function snapshotGroup(g: GroupState): CorrelationGroupSnapshot {
  const def = g.def;
  const r = def.rule;
  const { value, met } = evaluateGroup(g);
  const n = sizeOfEntries(g.entries);
  const earliest = earliestOf(g.entries);
  const latest = latestOf(g.entries);
  // Remaining suppression is measured from the newest entry (the group's own time when it has none).
  const now = latest ?? Math.max(markOf(g), 0);
  const parts = partsOf(g);
  return {
    correlation_index: def.index,
    ...(r.id !== undefined ? { correlation_id: r.id } : {}),
    ...(r.name !== undefined ? { correlation_name: r.name } : {}),
    correlation_title: r.title,
    type: def.type,
    group_key: def.groupBy.map((field, i) => {
      const v = parts[i];
      return v === null || v === undefined ? { field } : { field, value: v };
    }),
    group_key_display: renderGroupKey(def.groupBy, parts),
    ...(value !== undefined ? { got: value } : {}),
    threshold: def.threshold,
    met,
    entries: n,
    ...(earliest !== undefined && latest !== undefined
      ? {
          earliest: toSeconds(earliest),
          latest: toSeconds(latest),
          seconds_to_eviction: toSeconds(Math.max(0, earliest + def.timespanMs - latest)),
        }
      : {}),
    timespan_secs: toSeconds(def.timespanMs),
    ...(g.lastAlert >= 0 ? { last_alert: toSeconds(g.lastAlert) } : {}),
    ...(def.suppressMs > 0 ? { suppress_secs: toSeconds(def.suppressMs) } : {}),
    ...(g.lastAlert >= 0 && def.suppressMs > 0
      ? { suppression_remaining: toSeconds(Math.max(0, g.lastAlert + def.suppressMs - now)) }
      : {}),
    window: windowOf(g),
  };
}
