import type { Silence } from './config.js';
import { compileMatchers, matchesAll } from './matchers.js';
import type { CompiledMatcher } from './matchers.js';
import type { AlertResult } from './selectors.js';

export type SilenceState = 'pending' | 'active' | 'expired';

/** §9.7: pending before `starts_at`, expired from `ends_at` on, else active (unbounded: always). */
export function silenceState(s: Silence, now: number): SilenceState {
  if (s.starts_at !== undefined && now < s.starts_at) return 'pending';
  if (s.ends_at !== undefined && now >= s.ends_at) return 'expired';
  return 'active';
}

/**
 * Static silences (replaced whole by every load) and API ones (kept across reloads), in store order:
 * static first. Matchers are compiled once per silence.
 */
export class SilenceStore {
  private staticOnes: Silence[] = [];
  private api: Silence[] = [];
  private readonly compiled = new WeakMap<Silence, readonly CompiledMatcher[]>();

  all(): readonly Silence[] {
    return [...this.staticOnes, ...this.api];
  }

  apiSilences(): readonly Silence[] {
    return this.api;
  }

  get apiCount(): number {
    return this.api.length;
  }

  seedStatic(silences: readonly Silence[]): void {
    this.staticOnes = [...silences];
  }

  restoreApi(silences: readonly Silence[]): void {
    this.api = [...silences];
  }

  add(s: Silence): void {
    this.api.push(s);
  }

  /** Removes every silence with this id, of any origin (§9.7); false when none. */
  remove(id: string): boolean {
    const before = this.staticOnes.length + this.api.length;
    this.staticOnes = this.staticOnes.filter((s) => s.id !== id);
    this.api = this.api.filter((s) => s.id !== id);
    return this.staticOnes.length + this.api.length < before;
  }

  /** The first active silence whose matchers all match. */
  muting(result: AlertResult, now: number): Silence | undefined {
    for (const s of this.staticOnes) if (this.mutes(s, result, now)) return s;
    for (const s of this.api) if (this.mutes(s, result, now)) return s;
    return undefined;
  }

  /** Tick: drops expired silences of both origins. */
  expire(now: number): void {
    const live = (s: Silence): boolean => silenceState(s, now) !== 'expired';
    this.staticOnes = this.staticOnes.filter(live);
    this.api = this.api.filter(live);
  }

  activeCount(now: number): number {
    let n = 0;
    for (const s of this.all()) if (silenceState(s, now) === 'active') n++;
    return n;
  }

  private mutes(s: Silence, result: AlertResult, now: number): boolean {
    if (silenceState(s, now) !== 'active') return false;
    let m = this.compiled.get(s);
    if (m === undefined) {
      m = compileMatchers(s.matchers, `silence ${s.id}`);
      this.compiled.set(s, m);
    }
    return matchesAll(m, result);
  }
}
