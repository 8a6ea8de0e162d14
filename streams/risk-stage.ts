import Type from 'typebox';
import { annotatedResult, quietRiskObserver, RiskLayer } from '../actors/index.js';
import type { AlertResult, Contribution, RiskAnnotation, RiskObserver, RiskOutcome, RiskStatePiece } from '../actors/index.js';
import type { MetricHandles, RiskFile } from '../protocol/index.js';
import { resultIdForTimer } from '../state/index.js';
import type { JournaledKind, ReplayOutcome } from '../state/index.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';
import { JournaledStage } from './journaled-stage.js';
import { withEnrichments } from './result-value.js';
import { compileOnUse } from '../protocol/index.js';

/** Journal and snapshot `kind` of the risk layer (issue 14). */
const RISK_KIND = 'risk';

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
const isRiskEvent = compileOnUse(RiskEventSchema);

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

/** A risk event or incident of the result `seed`: its id derives from that result's (an input position) and `k`, not from the time. */
function emitted(seed: string, record: AlertResult, k: number): CommittedResult {
  const trigger = 'risk_incident_id' in record ? 'risk_incident' : 'risk_event';
  const result_id = resultIdForTimer(`risk:${seed}`, trigger, 0, k);
  const level = typeof record['level'] === 'string' ? record['level'] : null;
  return { result_id, head: { rule_title: trigger, rule_id: null, level }, text: JSON.stringify({ result_id, ...record }), bypass: true };
}

/** `JSON.stringify` of the annotation, written out: its shape is fixed and every object value a string. */
export function annotationText(a: RiskAnnotation): string {
  const objects = a['risk.objects'];
  const score = `{"risk.score":${JSON.stringify(a['risk.score'])}`;
  if (objects === undefined) return `${score}}`;
  let list = '';
  for (const o of objects) list += `${list === '' ? '' : ','}{"type":${JSON.stringify(o.type)},"value":${JSON.stringify(o.value)}}`;
  return `${score},"risk.objects":[${list}]}`;
}

/**
 * The result's line after the layer: unchanged, or with the `risk.*` enrichments (`withEnrichments`),
 * or re-serialised without its event payloads (`strip_event`).
 */
function annotatedLine(line: CommittedResult, r: AlertResult, o: RiskOutcome): CommittedResult {
  if (o.annotation === undefined) return line;
  if (!o.strip) return withEnrichments(line, o.annotation, annotationText(o.annotation));
  const value = { result_id: line.result_id, ...annotatedResult(r, o) };
  return { result_id: line.result_id, head: line.head, text: JSON.stringify(value), value };
}

/**
 * The risk layer as a stage of the batch order (§6: after correlation, before the alert pipeline)
 * and as a journaled kind. Its risk events and incidents go out right before the result that made
 * them, marked to bypass the alert pipeline.
 */
export class RiskStage extends JournaledStage<RiskFile, Exclude<RiskEvent, { readonly t: 'config' }>> {
  readonly layer: RiskLayer;

  constructor(
    journal: JournalBuffer,
    private readonly observer: RiskObserver,
    private readonly metrics?: MetricHandles,
  ) {
    const layer = new RiskLayer();
    super(journal, RISK_KIND, layer);
    this.layer = layer;
  }

  /** A batch's results through the layer, in order: emissions first, then each annotated result. */
  apply(lines: readonly CommittedResult[]): readonly CommittedResult[] {
    if (!this.active) return lines;
    const started = performance.now();
    const out: CommittedResult[] = [];
    this.forEachResult(lines, out, (line, r, now) => {
      const o = this.layer.process(r, now, line.result_id, this.observer);
      if (o.accumulated !== undefined) this.record({ t: 'add', now, seed: line.result_id, objects: o.accumulated.objects, c: o.accumulated.c });
      for (let k = 0; k < o.before.length; k++) out.push(emitted(line.result_id, o.before[k] as AlertResult, k));
      out.push(annotatedLine(line, r, o));
    });
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
