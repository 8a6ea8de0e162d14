import Type from 'typebox';
import { checkDisposition, DispositionStore } from '../actors/index.js';
import type { Disposition, DispositionConfig, DispositionStatePiece } from '../actors/index.js';
import type { DispositionSummary, MetricHandles } from '../protocol/index.js';
import type { JournaledKind, ReplayOutcome } from '../state/index.js';
import type { JournalBuffer } from './batch-processor.js';
import { compileOnUse } from '../protocol/index.js';

/** Journal and snapshot `kind` of the disposition store (issue 14). */
const DISPOSITION_KIND = 'dispositions';

/** The store's journal events: the checked records an ingest accepted, and the pruner's runs. */
const DispositionEventSchema = Type.Union([
  Type.Object({
    t: Type.Literal('accept'),
    now: Type.Integer(),
    d: Type.Array(Type.Object({ rule_id: Type.String(), verdict: Type.String(), timestamp: Type.Integer(), key: Type.String() })),
  }),
  Type.Object({ t: Type.Literal('prune'), now: Type.Integer() }),
]);
type DispositionEvent = { readonly t: 'accept'; readonly now: number; readonly d: readonly Disposition[] } | { readonly t: 'prune'; readonly now: number };
const isDispositionEvent = compileOnUse(DispositionEventSchema);

/**
 * The triage loop's store (daemon-semantics §10) as a journaled kind: an ingest journals what it
 * accepted into `journal`, which the caller commits (with the audit record) before answering, so an
 * `accepted` answer survives a crash.
 */
export class DispositionStage {
  readonly store: DispositionStore;

  constructor(
    config: DispositionConfig,
    private readonly journal: JournalBuffer,
    private readonly metrics?: MetricHandles,
  ) {
    this.store = new DispositionStore(config);
  }

  /** Checks and applies records (§10.2, §10.3) at `now`; `incident` resolves an open incident's rules. */
  ingest(records: readonly unknown[], now: number, source: string, incident: (id: string) => readonly string[] | undefined): DispositionSummary {
    const m = this.metrics;
    let accepted = 0;
    let duplicate = 0;
    const errors: { index: number; error: string }[] = [];
    const kept: Disposition[] = [];
    records.forEach((record, index) => {
      const checked = checkDisposition(record, now, incident);
      if (!checked.ok) {
        errors.push({ index, error: checked.error });
        m?.svc_disposition_ingest_errors_total.inc({ reason: 'validation' });
        m?.svc_disposition_ingest_total.inc({ source, result: 'rejected' });
        return;
      }
      for (const d of checked.records) {
        const outcome = this.store.apply(d, now);
        m?.svc_disposition_ingest_total.inc({ source, result: outcome });
        if (outcome === 'duplicate') {
          duplicate++;
          continue;
        }
        accepted++;
        kept.push(d);
        m?.svc_dispositions_total.inc({ rule_title: d.rule_id, verdict: d.verdict });
        this.gauge(d.rule_id);
      }
    });
    if (kept.length > 0) this.record({ t: 'accept', now, d: kept });
    return { accepted, duplicate, rejected: errors.length, ...(errors.length > 0 ? { errors } : {}) };
  }

  /** The 60 s pruner: journaled, then every ratio gauge refreshed (rules gone lose theirs). */
  prune(now: number): void {
    const before = this.store.ratios().map((r) => r.rule_id);
    this.store.prune(now);
    this.record({ t: 'prune', now });
    for (const rule of before) this.gauge(rule);
  }

  /** The `GET /api/v1/dispositions` document (§10.4). */
  document(): Record<string, unknown> {
    const c = this.store.config;
    return { window_seconds: c.windowSeconds, numerator: c.numerator, min_sample: c.minSample, rules: this.store.ratios() };
  }

  /** Sets a rule's ratio gauge, or removes the series while the rule has no ratio. */
  gauge(rule_id: string): void {
    const g = this.metrics?.svc_rule_false_positive_ratio;
    if (g === undefined) return;
    const ratio = this.store.ratio(rule_id)?.fp_ratio ?? null;
    if (ratio === null) g.remove({ rule_title: rule_id });
    else g.set({ rule_title: rule_id }, ratio);
  }

  kind(): JournaledKind<DispositionEvent, DispositionStatePiece> {
    const store = this.store;
    return {
      kind: DISPOSITION_KIND,
      malformed: 'is not a disposition event',
      isEvent: (event): event is DispositionEvent => isDispositionEvent.Check(event),
      codec: {
        version: 1,
        encode: (piece) => piece,
        decode: (encoded) => {
          const t = typeof encoded === 'object' && encoded !== null ? (encoded as { t?: unknown }).t : undefined;
          return t === 'rule' || t === 'seen' ? (encoded as DispositionStatePiece) : undefined;
        },
      },
      restore: (states) => store.restore(states),
      replay: (_key, event) => replayInto(store, event),
      states: () => [...store.pieces()].map((p, i) => [`${i}`, p] as const),
      recovered: () => {
        for (const r of store.ratios()) this.gauge(r.rule_id);
      },
    };
  }

  private record(event: DispositionEvent): void {
    this.journal.drafts.push({ at: this.journal.at, kind: DISPOSITION_KIND, key: '', event });
  }
}

function replayInto(store: DispositionStore, event: DispositionEvent): ReplayOutcome {
  if (event.t === 'prune') store.prune(event.now);
  else for (const d of event.d) store.apply(d, event.now);
  return 'applied';
}
