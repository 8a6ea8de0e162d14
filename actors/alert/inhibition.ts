import type { InhibitRule } from './config.js';
import { matchesAll } from './matchers.js';
import { resolveSelector, valueText } from './selectors.js';
import type { AlertResult } from './selectors.js';

/** `(rule, equal-key)` as one map key. */
function sourceKey(rule: string, equal: string): string {
  return `${rule}\u0000${equal}`;
}

function equalKey(rule: InhibitRule, result: AlertResult): string {
  let key = '';
  for (const sel of rule.equal) {
    const v = resolveSelector(sel, result);
    key += `\u001f${v === undefined ? '' : valueText(v)}`;
  }
  return key;
}

function isFresh(rules: readonly InhibitRule[], s: InhibitSource, now: number): boolean {
  const rule = rules.find((r) => r.name === s.rule);
  return rule !== undefined && now - s.last_seen < rule.duration;
}

export interface InhibitSource {
  readonly rule: string;
  readonly equal_key: string;
  readonly last_seen: number;
}

/** The inhibition source index of §9.8: `(rule name, equal-key) → last_seen`. */
export class InhibitionIndex {
  private readonly sources = new Map<string, InhibitSource>();

  /** The rule inhibiting the result, if any (reads the index only). */
  inhibiting(rules: readonly InhibitRule[], result: AlertResult, now: number): InhibitRule | undefined {
    for (const rule of rules) {
      if (!matchesAll(rule.target, result) || matchesAll(rule.source, result)) continue;
      const src = this.sources.get(sourceKey(rule.name, equalKey(rule, result)));
      if (src !== undefined && now - src.last_seen < rule.duration) return rule;
    }
    return undefined;
  }

  /** `[rule name, equal-key]` of every rule whose `source_match` the (not inhibited) result satisfies. */
  static sourcesOf(rules: readonly InhibitRule[], result: AlertResult): [string, string][] {
    const out: [string, string][] = [];
    for (const rule of rules) if (matchesAll(rule.source, result)) out.push([rule.name, equalKey(rule, result)]);
    return out;
  }

  /** Registers sources at `now` (live and at replay). */
  register(sources: readonly (readonly [string, string])[], now: number): void {
    for (const [rule, equal_key] of sources) this.sources.set(sourceKey(rule, equal_key), { rule, equal_key, last_seen: now });
  }

  /** Tick: drops stale entries and those of rules that are gone. */
  prune(rules: readonly InhibitRule[], now: number): void {
    for (const [k, s] of this.sources) if (!isFresh(rules, s, now)) this.sources.delete(k);
  }

  /** Entries still inhibiting at `now` (`svc_inhibit_sources_active`). */
  fresh(rules: readonly InhibitRule[], now: number): number {
    let n = 0;
    for (const s of this.sources.values()) if (isFresh(rules, s, now)) n++;
    return n;
  }

  entries(): readonly InhibitSource[] {
    return [...this.sources.values()];
  }

  restore(entries: readonly InhibitSource[]): void {
    this.sources.clear();
    for (const s of entries) this.sources.set(sourceKey(s.rule, s.equal_key), s);
  }
}
