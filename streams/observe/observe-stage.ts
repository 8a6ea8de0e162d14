// The observer stage (daemon-semantics §13.1, §13.3): each batch's observations, gathered where its
// lines were decoded, merge into the field observer and the schema observer. Built only when one of
// them is on, so a daemon without observers does no per-event work for them. Their Prometheus
// families advance by deltas when scraped or read, from lifetime counts, so they stay monotonic across resets.
import type { MetricHandles } from '../../protocol/index.js';
import { clusterShapes } from '../../sigma/index.js';
import type { ObservedBatch } from './batch-observation.js';
import type { FieldObserver } from './field-observer.js';
import type { SchemaObserver } from './schema-observer.js';

export interface ObserveStageDeps {
  readonly metrics: MetricHandles;
  readonly fields?: FieldObserver;
  readonly schemas?: SchemaObserver;
}

export class ObserveStage {
  private readonly reported = { events: 0, overflow: 0, unknown: 0, ambiguous: 0, bySchema: new Map<string, number>() };

  constructor(private readonly deps: ObserveStageDeps) {}

  /** A batch's observations. */
  merge(batch: ObservedBatch): void {
    if (batch.fields !== undefined) this.deps.fields?.merge(batch.events, batch.fields);
    if (batch.schemas !== undefined) this.deps.schemas?.merge(batch.schemas);
  }

  /** Advances the observer families to the observers' lifetime counts (at each scrape and observer call). */
  refreshMetrics(): void {
    const m = this.deps.metrics;
    const r = this.reported;
    const { fields, schemas } = this.deps;
    if (fields !== undefined) {
      const c = fields.counters();
      m.svc_fields_observed_total.inc(c.lifetimeEvents - r.events);
      m.svc_fields_observer_overflow_dropped_total.inc(c.lifetimeOverflow - r.overflow);
      m.svc_fields_observer_unique_keys.set(c.uniqueKeys);
      r.events = c.lifetimeEvents;
      r.overflow = c.lifetimeOverflow;
    }
    if (schemas !== undefined) {
      const t = schemas.lifetime();
      for (const [schema, n] of t.bySchema) {
        const before = r.bySchema.get(schema) ?? 0;
        if (n > before) m.svc_events_by_schema_total.inc({ schema }, n - before);
        r.bySchema.set(schema, n);
      }
      m.svc_events_unknown_schema_total.inc(t.unknown - r.unknown);
      m.svc_events_ambiguous_schema_total.inc(t.ambiguous - r.ambiguous);
      r.unknown = t.unknown;
      r.ambiguous = t.ambiguous;
      if (schemas.discovering) m.svc_unknown_schema_clusters.set(clusterShapes(schemas.discoverySample()).length);
    }
  }
}
