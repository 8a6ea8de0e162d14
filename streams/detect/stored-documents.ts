// The documents of a compiled-rule cache entry, stored one by one (issue 19 §2). A build from the entry
// needs of every rule only what the index, the logsource router, correlations and results name it by
// (kind, file, names, level, tags, logsource, custom attributes); the rest of a rule (its detections,
// condition, description, references...) is deserialised when first read, which for most rules of a
// corpus is never: only a rule the candidate index selects compiles its matchers.
import { deserialize, serialize } from 'node:v8';
import type { PreparedRules } from '../../sigma/index.js';

type DetectionRule = PreparedRules['detections'][number];
type SigmaDocument = PreparedRules['documents'][number];

/** What every rule carries in the entry's index, read at start-up. */
const EAGER = new Set(['kind', 'file', 'doc', 'title', 'id', 'name', 'level', 'tags', 'logsource', 'custom']);

/** One document: its eager fields, all its keys in order, and where its whole (serialised) lies in the bodies. */
interface StoredDocument {
  readonly eager: Readonly<Record<string, unknown>>;
  readonly keys: readonly string[];
  readonly at: number;
  readonly end: number;
}

/** The index of an entry's documents (plain data, in the entry's head). */
export interface StoredDocuments {
  readonly detections: readonly StoredDocument[];
  /** A number is the detection at that position (the very object, as the build had it); else stored on its own. */
  readonly documents: readonly (number | StoredDocument)[];
}

/**
 * Serialise each document on its own (`plain` makes it serialisable) and index them. A document that is
 * also a detection (no pipeline changed it) is stored once.
 */
export function storeDocuments(
  detections: readonly DetectionRule[],
  documents: readonly SigmaDocument[],
  plain: (doc: SigmaDocument) => Record<string, unknown>,
): { readonly index: StoredDocuments; readonly bodies: Buffer } {
  const parts: Buffer[] = [];
  let size = 0;
  // One array per distinct key order: the serialiser writes a repeated object once.
  const keyLists = new Map<string, string[]>();
  const store = (doc: SigmaDocument): StoredDocument => {
    const whole = plain(doc);
    const keys = Object.keys(whole);
    const joined = keys.join('\n');
    const shared = keyLists.get(joined) ?? keys;
    keyLists.set(joined, shared);
    const eager: Record<string, unknown> = {};
    for (const k of keys) if (EAGER.has(k)) eager[k] = whole[k];
    const bytes = serialize(whole);
    parts.push(bytes);
    size += bytes.length;
    return { eager, keys: shared, at: size - bytes.length, end: size };
  };
  const stored = detections.map(store);
  const position = new Map<SigmaDocument, number>(detections.map((d, i) => [d, i]));
  const index = { detections: stored, documents: documents.map((d) => position.get(d) ?? store(d)) };
  return { index, bodies: Buffer.concat(parts, size) };
}

/** The documents of `index`, their bodies read from `bodies` on first use. */
export function restoreDocuments(index: StoredDocuments, bodies: Uint8Array): { detections: DetectionRule[]; documents: SigmaDocument[] } {
  const restore = restorer(bodies);
  const detections = index.detections.map((d) => restore(d) as DetectionRule);
  const documents = index.documents.map((d) => (typeof d === 'number' ? (detections[d] as DetectionRule) : restore(d)));
  return { detections, documents };
}

/**
 * Documents whose eager fields are data and whose other fields are enumerable accessors of their whole,
 * deserialised once: spread, `JSON.stringify`, structured clone and deep equality see every field. The
 * accessors are shared by every document of `bodies` (they find the document's whole through `this`),
 * so documents of one key order share one shape.
 */
function restorer(bodies: Uint8Array): (stored: StoredDocument) => SigmaDocument {
  const sources = new WeakMap<object, StoredDocument>();
  const wholes = new WeakMap<object, Record<string, unknown>>();
  const whole = (doc: object): Record<string, unknown> => {
    let known = wholes.get(doc);
    if (known === undefined) {
      const stored = sources.get(doc) as StoredDocument;
      known = deserialize(bodies.subarray(stored.at, stored.end)) as Record<string, unknown>;
      wholes.set(doc, known);
    }
    return known;
  };
  const accessors = new Map<string, PropertyDescriptor>();
  const accessor = (key: string): PropertyDescriptor => {
    let known = accessors.get(key);
    if (known === undefined) {
      known = {
        enumerable: true,
        configurable: true,
        get(this: object) {
          return whole(this)[key];
        },
      };
      accessors.set(key, known);
    }
    return known;
  };
  // One constructor per key order of this restorer, with Object.prototype: its objects start from a map of
  // their own, so they follow one transition chain whose accessors are this restorer's. Built from `{}`, a
  // second restore in a thread (every reload from an entry) met the first restorer's accessors on the shared
  // transitions, and V8 made each of its documents a dictionary (restore about twice as slow, every read a
  // hash lookup).
  const shapes = new Map<readonly string[], new () => Record<string, unknown>>();
  const shape = (keys: readonly string[]): new () => Record<string, unknown> => {
    let known = shapes.get(keys);
    if (known === undefined) {
      known = function Document() {} as unknown as new () => Record<string, unknown>;
      known.prototype = Object.prototype;
      shapes.set(keys, known);
    }
    return known;
  };
  return (stored) => {
    const out = new (shape(stored.keys))();
    sources.set(out, stored);
    for (const k of stored.keys) {
      if (Object.hasOwn(stored.eager, k)) out[k] = stored.eager[k];
      else Object.defineProperty(out, k, accessor(k));
    }
    return out as unknown as SigmaDocument;
  };
}
