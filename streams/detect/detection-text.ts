// The NDJSON text of a detection result (without `result_id`), built from per-rule parts serialised
// once: the same bytes as stringifying the `DetectionResult` object at a fraction of the cost, which
// matters when most events match a few rules.
import type { CompiledRule, Match } from '../../sigma/index.js';

type MatchedField = Match['matchedFields'][number];

/**
 * The JSON array of `{field, value}` pairs as the native line shows them (match detail `off`,
 * daemon-semantics §5.1): keyword hits and matches that held because a field was absent are left out,
 * and a pair satisfied by several items is listed once. Stringified as objects in one call: its flat
 * string is cheaper to build and to encode into the batch's bytes (packed-texts.ts) than the same bytes
 * concatenated piece by piece (a rope of small strings, which encoding has to flatten first: issue 19 §4).
 */
function reportedFields(match: Match): string {
  const fields = match.matchedFields;
  const pairs: { field: string; value: unknown }[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as MatchedField;
    if (f.matcher === 'keyword' || f.value === null || listedBefore(fields, i)) continue;
    pairs.push({ field: f.field, value: f.value });
  }
  return JSON.stringify(pairs);
}

/** Whether a reported pair before `i` has the field and value of `fields[i]`. */
function listedBefore(fields: readonly MatchedField[], i: number): boolean {
  const f = fields[i] as MatchedField;
  for (let j = 0; j < i; j++) {
    const g = fields[j] as MatchedField;
    if (g.field === f.field && g.value === f.value && g.matcher !== 'keyword') return true;
  }
  return false;
}

interface RuleParts {
  /** `{"rule_title":…,"rule_id":…,"level":…,"tags":[…],"matched_selections":` */
  readonly head: string;
  /** `,"custom_attributes":{…}` or nothing. */
  readonly custom: string;
  /** `svc.include_event` asks for the event whatever `--include-event` says. */
  readonly embedsEvent: boolean;
  /**
   * The rule's last match and its text without the event (`body`, and `closed` as the whole text): a rule
   * matching the same values again (a host's images and command lines recur) gets the same text, whose
   * serialisation is most of building it.
   */
  last?: { readonly match: Match; readonly body: string; readonly closed: string };
}

function partsOf(rule: CompiledRule): RuleParts {
  const custom = rule.rule.custom;
  return {
    head: `{"rule_title":${JSON.stringify(rule.title)},"rule_id":${JSON.stringify(rule.id ?? null)},"level":${JSON.stringify(rule.level ?? null)},"tags":${JSON.stringify(rule.tags)},"matched_selections":`,
    custom: Object.keys(custom).length > 0 ? `,"custom_attributes":${JSON.stringify(custom)}` : '',
    embedsEvent: custom['svc.include_event'] === true || custom['svc.include_event'] === 'true',
  };
}

/** Whether two matches of one rule give the same text: the same selections, and fields with the same name, value and matcher. */
function sameText(a: Match, b: Match): boolean {
  const sa = a.matchedSelections;
  const sb = b.matchedSelections;
  const fa = a.matchedFields;
  const fb = b.matchedFields;
  if (sa.length !== sb.length || fa.length !== fb.length) return false;
  for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return false;
  for (let i = 0; i < fa.length; i++) {
    const f = fa[i] as MatchedField;
    const g = fb[i] as MatchedField;
    if (f.field !== g.field || f.value !== g.value || f.matcher !== g.matcher) return false;
  }
  return true;
}

export class DetectionText {
  private readonly parts = new WeakMap<CompiledRule, RuleParts>();

  constructor(private readonly includeEvent: boolean) {}

  /** Key order of `DetectionResult`: title, id, level, tags, selections, fields, custom, event. */
  of(match: Match, event: unknown): string {
    let p = this.parts.get(match.rule);
    if (p === undefined) {
      p = partsOf(match.rule);
      this.parts.set(match.rule, p);
    }
    let last = p.last;
    if (last === undefined || !sameText(last.match, match)) {
      const body = `${p.head}${JSON.stringify(match.matchedSelections)},"matched_fields":${reportedFields(match)}${p.custom}`;
      last = p.last = { match, body, closed: `${body}}` };
    }
    return this.includeEvent || p.embedsEvent ? `${last.body},"event":${JSON.stringify(event)}}` : last.closed;
  }
}
