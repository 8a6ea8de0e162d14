// The candidate index (ARCHITECTURE "The engine"): rules are filed under their witness literals; an event
// probes with the values of the indexed fields and gets back the set of rules worth evaluating (those whose
// witness it carries, plus those without a witness). Probing only over-approximates the rules that can
// match, so evaluate-with-index equals evaluate-without-index (checked differentially in the tests).
import { AhoCorasick, markAll } from './aho-corasick.js';
import { numericValue } from './event-text.js';
import type { EvalScope, FieldTable } from './eval-scope.js';
import { ABSENT, LeafList, MAX_DEPTH, ownValue } from './field-path.js';
import type { Witness } from './witness.js';

class FieldProbe {
  constructor(
    readonly slot: number,
    readonly exact: ReadonlyMap<string, Int32Array>,
    readonly numbers: ReadonlyMap<number, Int32Array>,
    readonly substrings: AhoCorasick | null,
  ) {}
}

function push<K>(m: Map<K, number[]>, k: K, rule: number): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [rule]);
  else if (list[list.length - 1] !== rule) list.push(rule);
}

function freeze<K>(m: ReadonlyMap<K, number[]>): Map<K, Int32Array> {
  const out = new Map<K, Int32Array>();
  for (const [k, v] of m) out.set(k, Int32Array.from(v));
  return out;
}

/** Bit set of rule indices, one bit per rule. */
export function ruleBits(ruleCount: number): Uint32Array {
  return new Uint32Array(Math.ceil(ruleCount / 32));
}

export class CandidateIndex {
  private readonly always: Uint32Array;
  /** Probes of dotted field names, resolved through the scope. */
  private readonly dotted: readonly FieldProbe[];
  /** Probes of plain field names by name: the event's own keys are looked up here (far fewer than fields). */
  private readonly plain: ReadonlyMap<string, FieldProbe>;
  /** Literals of keyword witnesses, scanned over the keyword leaves. */
  private readonly keywords: AhoCorasick | null;
  /** How many rules have a witness (for diagnostics and tests). */
  readonly witnessed: number;

  /** `witnesses[i]` is rule i's witness, or null to evaluate it for every event. */
  constructor(witnesses: readonly (Witness | null)[], table: FieldTable) {
    this.always = ruleBits(witnesses.length);
    const byField = new Map<string, { exact: Map<string, number[]>; numbers: Map<number, number[]>; subs: Map<string, number[]> }>();
    const keywords = new Map<string, number[]>();
    let witnessed = 0;
    witnesses.forEach((w, rule) => {
      if (w === null) {
        markAll(Int32Array.of(rule), this.always);
        return;
      }
      witnessed++;
      for (const p of w) {
        if (p.kind === 'keyword') {
          push(keywords, p.key, rule);
          continue;
        }
        let f = byField.get(p.field);
        if (f === undefined) {
          f = { exact: new Map(), numbers: new Map(), subs: new Map() };
          byField.set(p.field, f);
        }
        if (p.kind === 'exact') push(f.exact, p.key, rule);
        else if (p.kind === 'number') push(f.numbers, p.value, rule);
        else push(f.subs, p.key, rule);
      }
    });
    this.witnessed = witnessed;
    this.keywords = keywords.size > 0 ? new AhoCorasick(keywords) : null;
    const dotted: FieldProbe[] = [];
    const plain = new Map<string, FieldProbe>();
    for (const [name, f] of byField) {
      const probe = new FieldProbe(table.slot(name), freeze(f.exact), freeze(f.numbers), f.subs.size > 0 ? new AhoCorasick(f.subs) : null);
      if (name.includes('.')) dotted.push(probe);
      else plain.set(name, probe);
    }
    this.dotted = dotted;
    this.plain = plain;
  }

  /** Overwrite `bits` with the candidate rules for the scope's current event. */
  probe(scope: EvalScope, bits: Uint32Array): void {
    bits.set(this.always);
    const event = scope.event;
    if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
      for (const key in event) {
        const f = this.plain.get(key);
        if (f === undefined) continue;
        const v = ownValue(event, key);
        if (v !== ABSENT) this.probeValue(f, v, scope, bits, 0);
      }
    }
    const fields = this.dotted;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as FieldProbe;
      const raw = scope.resolve(f.slot);
      if (raw !== ABSENT) this.probeValue(f, raw, scope, bits, 0);
    }
    const kw = this.keywords;
    if (kw !== null) {
      const n = scope.keywordLeaves().count;
      for (let i = 0; i < n; i++) kw.scan(scope.keywordLower(i), bits);
    }
  }

  private probeValue(f: FieldProbe, value: unknown, scope: EvalScope, bits: Uint32Array, depth: number): void {
    if (Array.isArray(value)) {
      if (depth > MAX_DEPTH) return;
      for (let i = 0; i < value.length; i++) this.probeValue(f, value[i], scope, bits, depth + 1);
      return;
    }
    if (value instanceof LeafList) {
      for (let i = 0; i < value.count; i++) this.probeValue(f, value.items[i], scope, bits, depth + 1);
      return;
    }
    let text: string;
    switch (typeof value) {
      case 'string':
        text = scope.lower.lower(value);
        break;
      case 'number':
        text = String(value);
        break;
      case 'boolean':
        text = value ? 'true' : 'false';
        break;
      default:
        return;
    }
    const exact = f.exact.get(text);
    if (exact !== undefined) markAll(exact, bits);
    if (f.substrings !== null) f.substrings.scan(text, bits);
    if (f.numbers.size > 0) {
      const n = numericValue(value);
      if (!Number.isNaN(n)) {
        const rules = f.numbers.get(n);
        if (rules !== undefined) markAll(rules, bits);
      }
    }
  }
}
