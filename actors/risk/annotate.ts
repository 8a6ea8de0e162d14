import { resolveSelector } from '../alert/selectors.js';
import type { AlertResult } from '../alert/selectors.js';
import { InternTable } from '../alert/intern.js';
import type { RiskConfig } from './config.js';

/** The 14 ATT&CK enterprise tactic slugs (§8.3). */
const TACTICS = new Set([
  'reconnaissance',
  'resource-development',
  'initial-access',
  'execution',
  'persistence',
  'privilege-escalation',
  'defense-evasion',
  'credential-access',
  'discovery',
  'lateral-movement',
  'collection',
  'command-and-control',
  'exfiltration',
  'impact',
]);

export interface RiskObject {
  readonly type: string;
  readonly value: string;
}

function tagsOf(result: AlertResult): string[] {
  const tags = result['tags'];
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}

function attributeScore(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n)) return Math.round(n);
  }
  return undefined;
}

/** §8.2 step 2, first hit wins: custom attribute, tag scores, level score, default. */
export function resolveScore(config: RiskConfig, result: AlertResult): number {
  const attrs = result['custom_attributes'];
  if (typeof attrs === 'object' && attrs !== null) {
    const s = attributeScore((attrs as Record<string, unknown>)[config.scoreAttribute]);
    if (s !== undefined) return s;
  }
  if (config.tagScores.length > 0) {
    const hits: number[] = [];
    for (const tag of tagsOf(result)) for (const [test, score] of config.tagScores) if (test(tag)) hits.push(score);
    if (hits.length > 0) return config.tagReducer === 'max' ? Math.max(...hits) : hits.reduce((a, b) => a + b, 0);
  }
  const level = result['level'];
  const byLevel = typeof level === 'string' ? config.levelScores.get(level.toLowerCase()) : undefined;
  return byLevel ?? config.defaultScore;
}

function includesObject(objects: readonly RiskObject[], type: string, value: string): boolean {
  for (const x of objects) if (x.type === type && x.value === value) return true;
  return false;
}

/** §8.2 step 3: non-empty strings, numbers and booleans as text; duplicate `(type, value)` dropped. */
export function extractObjects(config: RiskConfig, result: AlertResult): RiskObject[] {
  const out: RiskObject[] = [];
  for (const o of config.objects) {
    const v = resolveSelector(o.selector, result);
    const value = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'boolean' ? String(v) : '';
    if (value === '' || includesObject(out, o.type, value)) continue;
    out.push({ type: o.type, value });
  }
  return out;
}

/** Tactic lists held once: an entity keeps many contributions, mostly of a few rules (live and at replay alike). */
const TACTIC_LISTS = new InternTable<readonly string[]>();

/** The shared, frozen copy of a tactic list. */
export function sharedTactics(tactics: readonly string[]): readonly string[] {
  return TACTIC_LISTS.get(tactics.join('\u0000'), () => Object.freeze([...tactics]));
}

/** Tactics by tag list: results carry the few tag lists of their rules, so each is worked out once. */
const TACTICS_OF_TAGS = new InternTable<readonly string[]>();

/** §8.3: ATT&CK tactics of the tags, lower-cased, `_` → `-`, distinct in first-seen order (shared, frozen). */
export function tacticsOf(result: AlertResult): readonly string[] {
  const tags = result['tags'];
  if (!Array.isArray(tags)) return NONE;
  let key = '';
  // Length-prefixed, so no tag's text can pass for two tags.
  for (const tag of tags as unknown[]) if (typeof tag === 'string') key += `${tag.length}:${tag}`;
  return TACTICS_OF_TAGS.get(key, () => sharedTactics(tacticsOfTags(tags as unknown[])));
}

const NONE: readonly string[] = Object.freeze([]);

function tacticsOfTags(tags: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const tag of tags) {
    if (typeof tag !== 'string') continue;
    const t = tag.toLowerCase();
    if (!t.startsWith('attack.')) continue;
    const slug = t.slice(7).replace(/_/g, '-');
    if (TACTICS.has(slug) && !out.includes(slug)) out.push(slug);
  }
  return out;
}
