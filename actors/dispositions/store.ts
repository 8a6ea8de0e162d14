import { rfc3339Seconds } from '../alert/config.js';

/** Bucket width and idempotency memory of §10.1 (fixed internals). */
export const BUCKET_SECONDS = 86_400;
const MAX_SEEN_KEYS = 100_000;
const NOTE_MAX_BYTES = 2048;

export const VERDICTS = ['true_positive', 'false_positive', 'benign_true_positive'] as const;
type Verdict = (typeof VERDICTS)[number];

export interface DispositionConfig {
  readonly windowSeconds: number;
  readonly numerator: 'fp_only' | 'fp_and_btp';
  readonly minSample: number;
}

/** A checked record with its rule resolved: what the store applies (and the journal keeps). */
export interface Disposition {
  readonly rule_id: string;
  readonly verdict: Verdict;
  readonly timestamp: number;
  /** The idempotency key of §10.3 step 2. */
  readonly key: string;
}

/** `[tp, fp, btp]` of one rule's day. */
type Counts = [number, number, number];

export interface RuleRatio {
  readonly rule_id: string;
  readonly true_positives: number;
  readonly false_positives: number;
  readonly benign_true_positives: number;
  readonly total: number;
  readonly fp_ratio: number | null;
}

export type DispositionStatePiece =
  | { readonly t: 'rule'; readonly rule_id: string; readonly buckets: readonly (readonly [number, number, number, number])[] }
  | { readonly t: 'seen'; readonly key: string; readonly ts: number };

export type RecordCheck = { readonly ok: true; readonly records: readonly Disposition[] } | { readonly ok: false; readonly error: string };

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Checks one input record (§10.2) and resolves its rules (§10.3 step 1): an incident-scoped record
 * without `rule_id` fans out over the open incident's `rule_counts` (from `incident`).
 */
export function checkDisposition(record: unknown, now: number, incident: (id: string) => readonly string[] | undefined): RecordCheck {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { ok: false, error: 'a disposition must be a JSON object' };
  const r = record as Record<string, unknown>;
  const verdict = r['verdict'];
  if (!(VERDICTS as readonly unknown[]).includes(verdict)) return { ok: false, error: `verdict: must be one of ${VERDICTS.join(', ')}` };
  const scope = r['scope'] ?? 'detection';
  if (scope !== 'detection' && scope !== 'incident') return { ok: false, error: "scope: must be 'detection' or 'incident'" };
  const ruleId = text(r['rule_id']);
  const incidentId = text(r['incident_id']);
  const fingerprint = text(r['fingerprint']);
  const analyst = text(r['analyst']);
  for (const k of ['rule_id', 'incident_id', 'fingerprint', 'analyst', 'note', 'timestamp'] as const) {
    if (r[k] !== undefined && typeof r[k] !== 'string') return { ok: false, error: `${k}: must be a string` };
  }
  if (typeof r['note'] === 'string' && new TextEncoder().encode(r['note']).length > NOTE_MAX_BYTES) return { ok: false, error: `note: longer than ${NOTE_MAX_BYTES} bytes` };
  let timestamp = now;
  if (typeof r['timestamp'] === 'string') {
    try {
      timestamp = rfc3339Seconds(r['timestamp'], 'timestamp') ?? now;
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
  if (scope === 'detection' && ruleId === undefined) return { ok: false, error: 'rule_id: required for scope detection' };
  if (scope === 'incident' && incidentId === undefined) return { ok: false, error: 'incident_id: required for scope incident' };
  let rules: readonly string[];
  if (ruleId !== undefined) rules = [ruleId];
  else {
    const found = incident(incidentId as string);
    if (found === undefined) return { ok: false, error: `incident '${incidentId as string}' is not open; supply an explicit rule_id` };
    rules = found;
  }
  const identity = fingerprint ?? incidentId;
  return {
    ok: true,
    records: rules.map((rule_id) => ({
      rule_id,
      verdict: verdict as Verdict,
      timestamp,
      key: JSON.stringify(identity !== undefined ? ['id', identity, verdict, rule_id] : ['rt', rule_id, timestamp, analyst ?? null]),
    })),
  };
}

/**
 * The disposition store of §10.3: per-rule day buckets, idempotency keys, ratios. Pure: `now` is an
 * argument, so the journal's records replay into the same state.
 */
export class DispositionStore {
  private readonly rules = new Map<string, Map<number, Counts>>();
  /** Seen keys → record time, oldest inserted first. */
  private readonly seen = new Map<string, number>();

  constructor(public config: DispositionConfig) {}

  /** Applies a checked record: `duplicate` when its key was seen. */
  apply(d: Disposition, now: number): 'accepted' | 'duplicate' {
    if (this.seen.has(d.key)) return 'duplicate';
    this.seen.set(d.key, d.timestamp);
    while (this.seen.size > MAX_SEEN_KEYS) this.seen.delete(this.seen.keys().next().value as string);
    let buckets = this.rules.get(d.rule_id);
    if (buckets === undefined) this.rules.set(d.rule_id, (buckets = new Map()));
    const index = Math.floor(d.timestamp / BUCKET_SECONDS);
    let counts = buckets.get(index);
    if (counts === undefined) buckets.set(index, (counts = [0, 0, 0]));
    const v = VERDICTS.indexOf(d.verdict);
    counts[v] = (counts[v] as number) + 1;
    const floor = Math.floor((now - this.config.windowSeconds) / BUCKET_SECONDS);
    for (const i of buckets.keys()) if (i < floor) buckets.delete(i);
    return 'accepted';
  }

  /** The pruner (§10.3): expired buckets, emptied rules and stale seen keys go. */
  prune(now: number): void {
    const floor = Math.floor((now - this.config.windowSeconds) / BUCKET_SECONDS);
    for (const [rule, buckets] of this.rules) {
      for (const i of buckets.keys()) if (i < floor) buckets.delete(i);
      if (buckets.size === 0) this.rules.delete(rule);
    }
    for (const [key, ts] of this.seen) if (ts < now - this.config.windowSeconds) this.seen.delete(key);
  }

  /** One rule's ratio entry; undefined when the store holds no such rule. */
  ratio(rule_id: string): RuleRatio | undefined {
    const buckets = this.rules.get(rule_id);
    if (buckets === undefined) return undefined;
    const [tp, fp, btp] = [...buckets.values()].reduce<Counts>((a, c) => [a[0] + c[0], a[1] + c[1], a[2] + c[2]], [0, 0, 0]);
    const total = tp + fp + btp;
    const numerator = this.config.numerator === 'fp_only' ? fp : fp + btp;
    const fp_ratio = total === 0 || total < this.config.minSample ? null : numerator / total;
    return { rule_id, true_positives: tp, false_positives: fp, benign_true_positives: btp, total, fp_ratio };
  }

  /** Every rule's ratio entry, sorted by rule id. */
  ratios(): RuleRatio[] {
    return [...this.rules.keys()].sort().map((r) => this.ratio(r) as RuleRatio);
  }

  *pieces(): Iterable<DispositionStatePiece> {
    for (const [rule_id, b] of this.rules) yield { t: 'rule', rule_id, buckets: [...b].map(([i, c]) => [i, ...c] as const) };
    for (const [key, ts] of this.seen) yield { t: 'seen', key, ts };
  }

  restore(pieces: readonly DispositionStatePiece[]): void {
    this.rules.clear();
    this.seen.clear();
    for (const p of pieces) {
      if (p.t === 'rule') this.rules.set(p.rule_id, new Map(p.buckets.map(([i, tp, fp, btp]) => [i, [tp, fp, btp] as Counts])));
      else this.seen.set(p.key, p.ts);
    }
  }
}
