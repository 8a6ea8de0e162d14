import Type from 'typebox';
import Compile from 'typebox/compile';
import { quietRiskObserver, RiskLayer } from '../actors/index.js';
import type { AlertResult, Contribution, RiskObserver, RiskStatePiece } from '../actors/index.js';
import type { MetricHandles, RiskFile } from '../protocol/index.js';
import { resultIdForTimer } from '../state/index.js';
import type { JournaledKind, ReplayOutcome } from '../state/index.js';
import { unixSeconds } from './alert-stage.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';

/** Journal and snapshot `kind` of the risk layer (issue 14). */
export const RISK_KIND = 'risk';

/**
 * The risk layer's journal events: its config, what each result added to the accumulator (the
 * contribution and its objects, not the whole result) and the ticks that expired something.
 */
const RiskEventSchema = Type.Union([
  Type.Object({ t: Type.Literal('config'), file: Type.Unknown() }),
  Type.Object({
    t: Type.Literal('add'),
    now: Type.Integer(),
    seed: Type.String(),
    objects: Type.Array(Type.Object({ type: Type.String(), value: Type.String() })),
    c: Type.Object({ ts: Type.Integer(), score: Type.Integer(), tactics: Type.Array(Type.String()), rule: Type.String() }),
  }),
  Type.Object({ t: Type.Literal('tick'), now: Type.Integer() }),
]);
type RiskEvent =
  | { readonly t: 'config'; readonly file: RiskFile | null }
  | { readonly t: 'add'; readonly now: number; readonly seed: string; readonly objects: readonly { type: string; value: string }[]; readonly c: Contribution }
  | { readonly t: 'tick'; readonly now: number };
const isRiskEvent = Compile(RiskEventSchema);

/** The §8.7 counters over the metric handles. */
export function riskMetricsObserver(m: MetricHandles): RiskObserver {
  return {
    annotation: (action, score, objects) => {
      m.svc_risk_annotations_total.inc({ action });
      if (score !== undefined) m.svc_risk_annotation_score.observe(score);
      if (objects !== undefined && objects > 0) m.svc_risk_objects_total.inc(objects);
    },
    eviction: (count) => m.svc_risk_evictions_total.inc(count),
    incident: (trigger) => {
      m.svc_risk_incidents_emitted_total.inc({ trigger });
      m.svc_risk_incident_results_total.inc();
    },
  };
}

function emitted(seed: string, now: number, record: AlertResult, k: number): CommittedResult {
  const trigger = 'risk_incident_id' in record ? 'risk_incident' : 'risk_event';
  const result_id = resultIdForTimer(`risk:${seed}`, trigger, now * 1000, k);
  const level = typeof record['level'] === 'string' ? record['level'] : null;
  return { result_id, head: { rule_title: trigger, rule_id: null, level }, text: JSON.stringify({ result_id, ...record }), bypass: true };
}

/**
 * The risk layer as a stage of the batch order (§6: after correlation, before the alert pipeline)
 * and as a journaled kind. Its risk events and incidents go out right before the result that made
 * them, marked to bypass the alert pipeline.
 */
export class RiskStage {
  readonly layer = new RiskLayer();

  constructor(
    private readonly journal: JournalBuffer,
    private readonly observer: RiskObserver,
    private readonly metrics?: MetricHandles,
  ) {}

  get active(): boolean {
    return this.layer.config !== undefined;
  }

  /** Loads a checked risk file (or none), journaling it when it differs from the one in force. Throws AlertConfigError. */
  load(file: RiskFile | undefined): void {
    const before = JSON.stringify(this.layer.configFile ?? null);
    this.layer.load(file);
    if (JSON.stringify(file ?? null) !== before) this.record({ t: 'config', file: file ?? null });
  }

  /** A batch's results through the layer, in order: emissions first, then each annotated result. */
  apply(lines: readonly CommittedResult[]): readonly CommittedResult[] {
    if (!this.active) return lines;
    const started = performance.now();
    const now = unixSeconds(this.journal.at);
    const out: CommittedResult[] = [];
    for (const line of lines) {
      if (line.bypass === true) {
        out.push(line);
        continue;
      }
      const { result_id, ...r } = JSON.parse(line.text) as AlertResult & { result_id: string };
      const o = this.layer.process(r, now, result_id, this.observer);
      if (o.accumulated !== undefined) this.record({ t: 'add', now, seed: result_id, objects: o.accumulated.objects, c: o.accumulated.c });
      o.before.forEach((rec, k) => out.push(emitted(result_id, now, rec, k)));
      out.push(o.result === r ? line : { result_id, head: line.head, text: JSON.stringify({ result_id, ...o.result }) });
    }
    this.metrics?.svc_risk_layer_duration_seconds.observe((performance.now() - started) / 1000);
    this.gauges();
    return out;
  }

  /** The 1 s tick at `now` (UNIX seconds), journaled only when it expires something. */
  tick(now: number): void {
    if (this.layer.due(now)) {
      this.record({ t: 'tick', now });
      this.layer.tick(now, this.observer);
    }
    this.gauges();
  }

  /** The journaled kind over this stage (recovery restores and replays into it, snapshots read it). */
  kind(): JournaledKind<RiskEvent, RiskStatePiece> {
    const layer = this.layer;
    return {
      kind: RISK_KIND,
      malformed: 'is not a risk layer event',
      isEvent: (event): event is RiskEvent => isRiskEvent.Check(event),
      codec: {
        version: 1,
        encode: (piece) => piece,
        decode: (encoded) => {
          const t = typeof encoded === 'object' && encoded !== null ? (encoded as { t?: unknown }).t : undefined;
          return t === 'config' || t === 'entity' ? (encoded as RiskStatePiece) : undefined;
        },
      },
      restore: (states) => layer.restore(states),
      replay: (_key, event) => replayInto(layer, event),
      states: () => [...layer.pieces()].map((p, i) => [`${i}`, p] as const),
    };
  }

  private record(event: RiskEvent): void {
    this.journal.drafts.push({ at: this.journal.at, kind: RISK_KIND, key: '', event });
  }

  /** The §8.7 gauges. */
  gauges(): void {
    const m = this.metrics;
    if (m === undefined) return;
    m.svc_risk_entities_open.set(this.layer.accumulator.entities.size);
    m.svc_risk_state_entries.set(this.layer.accumulator.entries);
  }
}

function replayInto(layer: RiskLayer, event: RiskEvent): ReplayOutcome {
  switch (event.t) {
    case 'config':
      try {
        layer.load(event.file ?? undefined);
      } catch (error) {
        return { unfit: `holds a risk config that no longer loads: ${error instanceof Error ? error.message : String(error)}` };
      }
      return 'applied';
    case 'add':
      layer.accumulate({ objects: event.objects, c: event.c }, event.now, event.seed, quietRiskObserver);
      return 'applied';
    case 'tick':
      layer.tick(event.now, quietRiskObserver);
      return 'applied';
  }
}
