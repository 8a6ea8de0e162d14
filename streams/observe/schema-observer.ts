// The schema observer (daemon-semantics §13.3): classifies every decoded event, counts per schema,
// samples the key shapes of unknown events and, with discovery, of the events only the catch-all
// claimed. Counts are kept since reset and for the observer's lifetime (the metrics follow lifetime).
import { GENERIC_JSON } from '../../sigma/index.js';
import type { KeyShape, SchemaReport, SchemasReset } from '../../protocol/index.js';
import type { SchemaClassifier } from '../../sigma/index.js';

/** Distinct shapes a sample holds; new shapes beyond are ignored, known ones keep counting. */
const MAX_SHAPES = 200;
/** Keys kept per shape (sorted, de-duplicated, then truncated). */
const MAX_SHAPE_KEYS = 64;

class ShapeSample {
  private readonly shapes = new Map<string, { keys: string[]; count: number }>();

  record(keys: readonly string[]): void {
    const sorted = [...new Set(keys)].sort().slice(0, MAX_SHAPE_KEYS);
    const id = sorted.join('\n');
    const known = this.shapes.get(id);
    if (known !== undefined) known.count++;
    else if (this.shapes.size < MAX_SHAPES) this.shapes.set(id, { keys: sorted, count: 1 });
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
    private readonly classifier: SchemaClassifier,
    discover: boolean,
    private readonly now: () => number,
  ) {
    this.discovery = discover ? new ShapeSample() : undefined;
    this.since = now();
  }

  get discovering(): boolean {
    return this.discovery !== undefined;
  }

  /** One decoded event and its field keys (none for plain text); returns the schema it was classified as. */
  observe(event: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
    const c = keys.length === 0 ? undefined : this.classifier.classify(event);
    const schema = c?.schema;
    if (c?.ambiguous === true) {
      this.ambiguous++;
      this.lifetimeAmbiguous++;
    }
    if (this.discovery !== undefined && (schema === undefined || schema === GENERIC_JSON) && keys.length > 0) this.discovery.record(keys);
    if (schema !== undefined) {
      this.bySchema.set(schema, (this.bySchema.get(schema) ?? 0) + 1);
      this.lifetimeBySchema.set(schema, (this.lifetimeBySchema.get(schema) ?? 0) + 1);
    } else {
      this.unknown++;
      this.lifetimeUnknown++;
      this.unknownShapes.record(keys);
    }
    return schema;
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
