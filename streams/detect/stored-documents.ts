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
  const detections = index.detections.map((d) => restore(d, bodies) as DetectionRule);
  const documents = index.documents.map((d) => (typeof d === 'number' ? (detections[d] as DetectionRule) : restore(d, bodies)));
  return { detections, documents };
}

/**
 * A document whose eager fields are data and whose other fields are enumerable accessors of its whole,
 * deserialised once: spread, `JSON.stringify`, structured clone and deep equality see every field.
 */
function restore(stored: StoredDocument, bodies: Uint8Array): SigmaDocument {
  let whole: Record<string, unknown> | undefined;
  const load = (): Record<string, unknown> => (whole ??= deserialize(bodies.subarray(stored.at, stored.end)) as Record<string, unknown>);
  const out: Record<string, unknown> = {};
  for (const k of stored.keys) {
    if (Object.hasOwn(stored.eager, k)) out[k] = stored.eager[k];
    else Object.defineProperty(out, k, { enumerable: true, configurable: true, get: () => load()[k] });
  }
  return out as unknown as SigmaDocument;
}
