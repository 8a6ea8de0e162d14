// What the field and schema observers learn from one batch (daemon-semantics §13.1, §13.3), gathered
// where the batch's lines are already decoded (a detection worker, or the main thread inline) and sent
// as compact per-batch counts that the main thread merges into the observers. Counts are kept in the
// order keys and shapes were first seen, so that merging a batch admits new keys and shapes under the
// observers' caps exactly as observing its events one by one would.
import type { InputFormat, JsonEvent, SchemaSignature } from '../../protocol/index.js';
import { GENERIC_JSON, LeafPaths, sameKeys, SchemaClassifier } from '../../sigma/index.js';

/** Keys kept per sampled shape (sorted, then truncated). */
const MAX_SHAPE_KEYS = 64;

/** Which observers run: fixed for the daemon's lifetime, sent to every detection worker. */
export interface ObserveSettings {
  readonly fields: boolean;
  /** Schema observation: the `--schema-config` signatures beside the built-ins, and `--discover-schemas`. */
  readonly schemas?: { readonly signatures: readonly SchemaSignature[]; readonly discover: boolean };
}

/** Distinct items in the order first seen, with how many events each came from. */
export interface Tally<T> {
  readonly items: readonly T[];
  readonly counts: readonly number[];
}

export interface ObservedSchemas {
  /** Events per schema name. */
  readonly bySchema: Tally<string>;
  readonly unknown: number;
  readonly ambiguous: number;
  /** Key shapes (sorted, truncated) of the unknown events. */
  readonly unknownShapes: Tally<readonly string[]>;
  /** With discovery: key shapes of the unknown and catch-all events that have keys. */
  readonly discoveryShapes?: Tally<readonly string[]>;
}

/** One batch's observations: structured-clone data only. */
export interface ObservedBatch {
  /** Events observed (decoded, non-blank lines). */
  readonly events: number;
  /** Field keys, each counted once per event carrying it; absent without field observation. */
  readonly fields?: Tally<string>;
  readonly schemas?: ObservedSchemas;
}

class Tallier<T> {
  private readonly counts = new Map<string, { item: T; count: number }>();

  add(id: string, item: T): void {
    const known = this.counts.get(id);
    if (known !== undefined) known.count++;
    else this.counts.set(id, { item, count: 1 });
  }

  result(): Tally<T> {
    const items: T[] = [];
    const counts: number[] = [];
    for (const { item, count } of this.counts.values()) {
      items.push(item);
      counts.push(count);
    }
    return { items, counts };
  }
}

/** The sampled form of an event's keys and its identity in a sample. */
function shapeOf(keys: readonly string[]): { readonly id: string; readonly keys: readonly string[] } {
  const sorted = [...keys].sort().slice(0, MAX_SHAPE_KEYS);
  return { id: sorted.join('\n'), keys: sorted };
}

/** Which observers run and how lines decode: `batch()` starts gathering one batch's observations. */
export class BatchObserver {
  private readonly classifier: SchemaClassifier | undefined;
  /** Lives across batches: its per-shape memo is what makes it cheap. */
  private readonly leafPaths = new LeafPaths();

  constructor(
    private readonly settings: ObserveSettings,
    private readonly format: InputFormat,
  ) {
    this.classifier = settings.schemas === undefined ? undefined : new SchemaClassifier(settings.schemas.signatures);
  }

  batch(): BatchObservation {
    return new BatchObservation(this.settings, this.format, this.classifier, this.leafPaths);
  }
}

/** One batch's observations, gathered event by event. */
export class BatchObservation {
  private events = 0;
  private readonly fields: Map<string, number> | undefined;
  /** The keys of the last events, all of one shape, and how many they are: tallied into `fields` when the shape changes. */
  private runKeys: readonly string[] = [];
  private run = 0;
  private readonly bySchema = new Map<string, number>();
  private unknown = 0;
  private ambiguous = 0;
  private readonly unknownShapes = new Tallier<readonly string[]>();
  private readonly discoveryShapes: Tallier<readonly string[]> | undefined;

  constructor(
    settings: ObserveSettings,
    private readonly format: InputFormat,
    private readonly classifier: SchemaClassifier | undefined,
    private readonly leafPaths: LeafPaths,
  ) {
    this.fields = settings.fields ? new Map() : undefined;
    this.discoveryShapes = settings.schemas?.discover === true ? new Tallier() : undefined;
  }

  /** One line as decoded by the engine; a blank line is not an event. */
  observe(event: JsonEvent, line: string): void {
    if (line.trim() === '') return;
    this.events++;
    const format = this.format;
    // A plain-text event (`{_raw: line}`) has no field keys.
    const plain = format === 'plain' || (format === 'auto' && event['_raw'] === line && Object.keys(event).length === 1);
    const keys = plain ? [] : this.leafPaths.of(event);
    // A stream mostly repeats a few shapes (flat ones as the same array): comparing keys is cheaper than counting each.
    if (this.fields !== undefined) {
      if (this.run > 0 && (this.runKeys === keys || sameKeys(this.runKeys, keys))) this.run++;
      else {
        this.tallyRun(this.fields);
        this.runKeys = keys;
        this.run = 1;
      }
    }
    if (this.classifier !== undefined) this.classify(this.classifier, event, keys);
  }

  result(): ObservedBatch {
    if (this.fields !== undefined) this.tallyRun(this.fields);
    const fields = this.fields === undefined ? undefined : { items: [...this.fields.keys()], counts: [...this.fields.values()] };
    return {
      events: this.events,
      ...(fields !== undefined ? { fields } : {}),
      ...(this.classifier !== undefined
        ? {
            schemas: {
              bySchema: { items: [...this.bySchema.keys()], counts: [...this.bySchema.values()] },
              unknown: this.unknown,
              ambiguous: this.ambiguous,
              unknownShapes: this.unknownShapes.result(),
              ...(this.discoveryShapes !== undefined ? { discoveryShapes: this.discoveryShapes.result() } : {}),
            },
          }
        : {}),
    };
  }

  private tallyRun(fields: Map<string, number>): void {
    const keys = this.runKeys;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      fields.set(key, (fields.get(key) ?? 0) + this.run);
    }
    this.run = 0;
  }

  private classify(classifier: SchemaClassifier, event: JsonEvent, keys: readonly string[]): void {
    const c = keys.length === 0 ? undefined : classifier.classify(event);
    const schema = c?.schema;
    if (c?.ambiguous === true) this.ambiguous++;
    let shape: ReturnType<typeof shapeOf> | undefined;
    if (this.discoveryShapes !== undefined && (schema === undefined || schema === GENERIC_JSON) && keys.length > 0) {
      shape = shapeOf(keys);
      this.discoveryShapes.add(shape.id, shape.keys);
    }
    if (schema !== undefined) this.bySchema.set(schema, (this.bySchema.get(schema) ?? 0) + 1);
    else {
      this.unknown++;
      shape ??= shapeOf(keys);
      this.unknownShapes.add(shape.id, shape.keys);
    }
  }
}
