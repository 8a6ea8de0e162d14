// The schema observer (daemon-semantics §13.3): counts the events of each schema, samples the key
// shapes of unknown events and, with discovery, of the events only the catch-all claimed, from the
// batches' observations (the events are classified where they were decoded, see batch-observation.ts).
// Counts are kept since reset and for the observer's lifetime (the metrics follow lifetime).
import type { KeyShape, SchemaReport, SchemasReset } from '../../protocol/index.js';
import type { ObservedSchemas, Tally } from './batch-observation.js';

/** Distinct shapes a sample holds; new shapes beyond are ignored, known ones keep counting. */
const MAX_SHAPES = 200;

class ShapeSample {
  private readonly shapes = new Map<string, { keys: readonly string[]; count: number }>();

  /** Shapes as a batch observation sampled them (sorted, truncated keys), in the order first seen. */
  merge(shapes: Tally<readonly string[]>): void {
    for (let i = 0; i < shapes.items.length; i++) {
      const keys = shapes.items[i] as readonly string[];
      const count = shapes.counts[i] as number;
      const id = keys.join('\n');
      const known = this.shapes.get(id);
      if (known !== undefined) known.count += count;
      else if (this.shapes.size < MAX_SHAPES) this.shapes.set(id, { keys, count });
    }
  }

  list(): KeyShape[] {
    return [...this.shapes.values()]
      .map((s) => ({ keys: [...s.keys], count: s.count }))
      .sort((a, b) => b.count - a.count || (a.keys.join('\n') < b.keys.join('\n') ? -1 : 1));
  }

  clear(): void {
    this.shapes.clear();
  }
}

export interface SchemaTotals {
  readonly bySchema: ReadonlyMap<string, number>;
  readonly unknown: number;
  readonly ambiguous: number;
}

export class SchemaObserver {
  private bySchema = new Map<string, number>();
  private unknown = 0;
  private ambiguous = 0;
  private readonly lifetimeBySchema = new Map<string, number>();
  private lifetimeUnknown = 0;
  private lifetimeAmbiguous = 0;
  private readonly unknownShapes = new ShapeSample();
  /** The discovery sample: shapes of unknown and catch-all events; undefined without `--discover-schemas`. */
  private readonly discovery: ShapeSample | undefined;
  private since: number;

  constructor(
    discover: boolean,
    private readonly now: () => number,
  ) {
    this.discovery = discover ? new ShapeSample() : undefined;
    this.since = now();
  }

  get discovering(): boolean {
    return this.discovery !== undefined;
  }

  /** A batch's classifications. */
  merge(batch: ObservedSchemas): void {
    const { items, counts } = batch.bySchema;
    for (let i = 0; i < items.length; i++) {
      const schema = items[i] as string;
      const n = counts[i] as number;
      this.bySchema.set(schema, (this.bySchema.get(schema) ?? 0) + n);
      this.lifetimeBySchema.set(schema, (this.lifetimeBySchema.get(schema) ?? 0) + n);
    }
    this.unknown += batch.unknown;
    this.lifetimeUnknown += batch.unknown;
    this.ambiguous += batch.ambiguous;
    this.lifetimeAmbiguous += batch.ambiguous;
    this.unknownShapes.merge(batch.unknownShapes);
    if (batch.discoveryShapes !== undefined) this.discovery?.merge(batch.discoveryShapes);
  }

  lifetime(): SchemaTotals {
    return { bySchema: this.lifetimeBySchema, unknown: this.lifetimeUnknown, ambiguous: this.lifetimeAmbiguous };
  }

  /** The discovery sample (empty without discovery). */
  discoverySample(): KeyShape[] {
    return this.discovery?.list() ?? [];
  }

  report(): Omit<SchemaReport, 'routing_pruning'> {
    const classified = [...this.bySchema.values()].reduce((n, c) => n + c, 0);
    return {
      summary: {
        events_observed: classified + this.unknown,
        classified,
        unknown: this.unknown,
        ambiguous: this.ambiguous,
        uptime_seconds: (this.now() - this.since) / 1000,
      },
      by_schema: [...this.bySchema]
        .map(([schema, count]) => ({ schema, count }))
        .sort((a, b) => b.count - a.count || (a.schema < b.schema ? -1 : a.schema > b.schema ? 1 : 0)),
      unknown_shapes: this.unknownShapes.list(),
    };
  }

  /** Clears the since-reset counts and both samples and restarts the uptime clock; lifetime totals stay. */
  reset(): SchemasReset {
    const previous = { status: 'reset' as const, previous_classified: [...this.bySchema.values()].reduce((n, c) => n + c, 0), previous_unknown: this.unknown };
    this.bySchema = new Map();
    this.unknown = 0;
    this.ambiguous = 0;
    this.unknownShapes.clear();
    this.discovery?.clear();
    this.since = this.now();
    return previous;
  }
}
