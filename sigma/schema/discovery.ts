// Discovery suggestions (daemon-semantics §13.4): mines signatures from a keys-only sample of the event
// shapes no specific signature claimed. Greedy Jaccard clustering, then per cluster the fewest
// `field_present` predicates (at most 3) that tell it apart from the other clusters.
import YAML from 'yaml';
import type { KeyShape, SchemaSignature, SchemaSuggestions, SignatureCandidate } from '../../protocol/index.js';
import { BUILTIN_SIGNATURES } from './builtin-signatures.js';
import { SchemaClassifier } from './classifier.js';

const DISCOVERY_DEFAULTS = {
  minSupport: 3,
  similarity: 0.6,
  maxCandidates: 20,
  maxPredicates: 3,
  corePresence: 0.9,
  /** Sample key sets kept per cluster, and keys per sample. */
  samples: 3,
  sampleKeys: 24,
} as const;

interface Cluster {
  readonly seed: ReadonlySet<string>;
  total: number;
  readonly keyCounts: Map<string, number>;
  readonly samples: string[][];
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function jaccard(a: ReadonlySet<string>, b: readonly string[]): number {
  let shared = 0;
  for (const k of b) if (a.has(k)) shared++;
  const union = a.size + b.length - shared;
  return union === 0 ? 0 : shared / union;
}

/** Steps 1–2: shapes without keys dropped, sorted by count desc then keys asc, clustered greedily. */
export function clusterShapes(shapes: readonly KeyShape[]): Cluster[] {
  const sorted = shapes.filter((s) => s.keys.length > 0).sort((a, b) => b.count - a.count || compareKeys(a.keys, b.keys));
  const clusters: Cluster[] = [];
  for (const shape of sorted) {
    let cluster = clusters.find((c) => jaccard(c.seed, shape.keys) >= DISCOVERY_DEFAULTS.similarity);
    if (cluster === undefined) clusters.push((cluster = { seed: new Set(shape.keys), total: 0, keyCounts: new Map(), samples: [] }));
    cluster.total += shape.count;
    for (const k of shape.keys) cluster.keyCounts.set(k, (cluster.keyCounts.get(k) ?? 0) + shape.count);
    if (cluster.samples.length < DISCOVERY_DEFAULTS.samples) cluster.samples.push(shape.keys.slice(0, DISCOVERY_DEFAULTS.sampleKeys));
  }
  return clusters;
}

function slug(field: string): string {
  return field.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

const builtins = new SchemaClassifier();
/** Built-in name → its highest specificity (`generic_json` is not one: it never shadows). */
const builtinSpecificity = new Map<string, number>();
for (const s of BUILTIN_SIGNATURES) builtinSpecificity.set(s.name, Math.max(s.specificity, builtinSpecificity.get(s.name) ?? 0));

/** A shape as an event (every key present) for checking a candidate against the built-ins. */
function shapeEvent(keys: readonly string[]): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  for (const k of keys) event[k] = '';
  return event;
}

/** Steps 3–5 over a keys-only sample. */
export function suggestSignatures(shapes: readonly KeyShape[]): SchemaSuggestions {
  const clusters = clusterShapes(shapes);
  const mined = clusters.reduce((n, c) => n + c.total, 0);
  const taken = new Map<string, number>();
  const candidates: SignatureCandidate[] = [];
  for (const cluster of clusters) {
    if (cluster.total < DISCOVERY_DEFAULTS.minSupport) continue;
    const others = clusters.filter((c) => c !== cluster);
    const otherEvents = others.reduce((n, c) => n + c.total, 0);
    const core = [...cluster.keyCounts]
      .filter(([, n]) => n >= DISCOVERY_DEFAULTS.corePresence * cluster.total)
      .map(([field, n]) => {
        const outside = others.reduce((m, c) => m + (c.keyCounts.get(field) ?? 0), 0);
        // Value cardinality is always 0 online, so its term (−0.15·ln(1+0)) vanishes.
        return { field, score: n / cluster.total - (otherEvents === 0 ? 0 : outside / otherEvents) };
      })
      .sort((a, b) => b.score - a.score || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    const fields: string[] = [];
    let separated = false;
    for (const { field } of core) {
      fields.push(field);
      separated = !others.some((c) => fields.every((f) => c.keyCounts.has(f)));
      if (separated || fields.length === DISCOVERY_DEFAULTS.maxPredicates) break;
    }
    if (fields.length === 0) continue;
    const specificity = Math.min(104, Math.max(55, 60 + 3 * (fields.length - 1)));
    const warnings: string[] = separated ? [] : [`predicates do not separate this cluster from ${others.filter((c) => fields.every((f) => c.keyCounts.has(f))).length} other cluster(s)`];
    // A built-in at least as specific that claims every sample shape makes the candidate unreachable.
    const shadows = cluster.samples.flatMap((keys) => {
      const schema = builtins.classify(shapeEvent(keys)).schema;
      return schema !== undefined && builtinSpecificity.has(schema) ? [schema] : [];
    });
    if (shadows.length === cluster.samples.length && shadows.every((n) => (builtinSpecificity.get(n) ?? 0) >= specificity)) continue;
    for (const name of new Set(shadows)) warnings.push(`sample shapes also match built-in signature ${name}`);
    const base = `discovered_${slug(fields[0] as string)}`;
    const seen = (taken.get(base) ?? 0) + 1;
    taken.set(base, seen);
    candidates.push({
      name: seen === 1 ? base : `${base}_${seen}`,
      specificity,
      source: 'keys-only',
      support: cluster.total,
      coverage_of_unknown: mined === 0 ? 0 : cluster.total / mined,
      predicates: fields.map((f) => `field_present: ${f}`),
      sample_field_sets: cluster.samples,
      overlap_warnings: warnings,
    });
  }
  const kept = candidates
    .sort((a, b) => b.support - a.support || b.coverage_of_unknown - a.coverage_of_unknown || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, DISCOVERY_DEFAULTS.maxCandidates);
  return {
    summary: { events_mined: mined, shapes: shapes.filter((s) => s.keys.length > 0).length, clusters: clusters.length, candidates: kept.length },
    candidates: kept,
    signatures_yaml: signaturesYaml(kept),
  };
}

/** The candidates as a `schemas:` block a user can paste into `--schema-config`. */
function signaturesYaml(candidates: readonly SignatureCandidate[]): string {
  if (candidates.length === 0) return 'schemas: []\n';
  const schemas: SchemaSignature[] = candidates.map((c) => ({
    name: c.name,
    specificity: c.specificity,
    match: c.predicates.map((p) => ({ field_present: p.slice('field_present: '.length) })),
  }));
  return YAML.stringify({ schemas });
}
