// The candidate index (ARCHITECTURE "The engine"): rules are filed under their witness literals (up to two
// independently required ones); an event probes with the values of the indexed fields and gets back the
// rules worth evaluating: those whose witnesses it all carries, plus those without a witness. Per field,
// exact keys are looked up, prefixes and suffixes walked from their end (AffixTrie), substrings scanned
// (AhoCorasick), and a field's mere presence marks the rules that need nothing more of it; keyword
// literals are scanned over every keyword leaf. Probing only over-approximates the rules that can match,
// so evaluate-with-index equals evaluate-without-index (checked differentially in the tests).
//
// Bookkeeping: one bit set per witness slot, laid out back to back; a posting is the bit index
// `slot * slotBits + rule`, so marking a hit is the same operation whatever the slot. After the slots, one
// bit per keyword literal (KeywordLiterals) that keyword items read instead of searching the event.
import type { AffixTrie } from './affix-trie.js';
import { type AhoCorasick, DENSE_ROWS, isDigitsNumber, markAll, SCAN_HIT, SCAN_NON_ASCII } from './aho-corasick.js';
import { BUILD_AUTOMATA, type AutomatonSupply } from './automaton-tables.js';
import { isAscii, numericValue } from './event-text.js';
import type { EvalScope, FieldTable } from './eval-scope.js';
import { ABSENT, collectKeywordLeaves, LeafList, MAX_DEPTH, ownValue } from './field-path.js';
import { BitTaker, MAX_CACHED_LENGTH, NO_POSTINGS, ProbeCache } from './probe-cache.js';
import { MAX_WITNESSES, type Probe, type Witness } from './witness.js';

/** Dense rows an index automaton may add for the nodes the event text visits most (up to 2 MB more). */
const ADAPTIVE_ROWS = 4096;
/** Values per cache generation, per field (for its own probes and for the keyword scan). */
const FIELD_CACHE_VALUES = 1024;
/** Keys no rule names that are still given a keyword cache: events with ever new keys do not grow the index. */
const UNINDEXED_KEYS = 512;

class FieldProbe {
  /** Lengths some exact key has: a longer or other value skips hashing the text for the lookup. */
  readonly exactLengths: Uint8Array;
  /** Postings of recently probed string values; null when a string value has nothing to probe. */
  readonly cache: ProbeCache | null;
  constructor(
    readonly slot: number,
    readonly exact: ReadonlyMap<string, Int32Array>,
    readonly numbers: ReadonlyMap<number, Int32Array>,
    readonly substrings: AhoCorasick | null,
    readonly prefixes: AffixTrie | null,
    readonly suffixes: AffixTrie | null,
    /** Postings of rules that only need the field to resolve. */
    readonly present: Int32Array,
  ) {
    let longest = -1;
    for (const k of exact.keys()) longest = Math.max(longest, k.length);
    this.exactLengths = new Uint8Array(longest + 1);
    for (const k of exact.keys()) this.exactLengths[k.length] = 1;
    const probesText = exact.size > 0 || numbers.size > 0 || substrings !== null || prefixes !== null || suffixes !== null;
    this.cache = probesText ? new ProbeCache(FIELD_CACHE_VALUES) : null;
  }
}

/** What an event key leads to: the field of that name, dotted fields under it, and its keyword cache. */
class KeyProbes {
  /** Keyword scan results of this key's string values (made when first needed). */
  keywordCache: ProbeCache | null = null;
  constructor(
    /** A dotted name found as a key is that field's value (a literal key wins). */
    readonly own: FieldProbe | null,
    /** Dotted fields with this first segment: resolved only when the event has it as an object. */
    readonly under: readonly FieldProbe[],
  ) {}
}

const NO_PROBES: readonly FieldProbe[] = [];

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

interface FieldPostings {
  readonly exact: Map<string, number[]>;
  readonly numbers: Map<number, number[]>;
  readonly prefixes: Map<string, number[]>;
  readonly suffixes: Map<string, number[]>;
  readonly subs: Map<string, number[]>;
  readonly present: number[];
}

/** File one probe of a witness under its posting (see the bookkeeping note at the top). */
function fileProbe(p: Probe, posting: number, byField: Map<string, FieldPostings>, keywords: Map<string, number[]>): void {
  if (p.kind === 'keyword') {
    push(keywords, p.key, posting);
    return;
  }
  let f = byField.get(p.field);
  if (f === undefined) {
    f = { exact: new Map(), numbers: new Map(), prefixes: new Map(), suffixes: new Map(), subs: new Map(), present: [] };
    byField.set(p.field, f);
  }
  if (p.kind === 'present') f.present.push(posting);
  else if (p.kind === 'exact') push(f.exact, p.key, posting);
  else if (p.kind === 'number') push(f.numbers, p.value, posting);
  else if (p.kind === 'prefix') push(f.prefixes, p.key, posting);
  else if (p.kind === 'suffix') push(f.suffixes, p.key, posting);
  else push(f.subs, p.key, posting);
}

/** One indexed field as filed: its postings by key, the rules that only need it present, its automata. */
interface FieldFiling {
  readonly name: string;
  readonly exact: ReadonlyMap<string, Int32Array>;
  readonly numbers: ReadonlyMap<number, Int32Array>;
  readonly present: Int32Array;
  readonly substrings: AhoCorasick | null;
  readonly prefixes: AffixTrie | null;
  readonly suffixes: AffixTrie | null;
}

/** What the index is built from: filed from the witnesses, or unpacked from a PackedIndex. */
interface Filing {
  /** Rules the bit sets are sized for (a multiple of 32 is as good as the count: only the words matter). */
  readonly rules: number;
  readonly witnessed: number;
  readonly preset: Uint32Array;
  readonly keywordRules: Int32Array;
  readonly keywords: AhoCorasick | null;
  /** In the order their automata were asked for. */
  readonly fields: readonly FieldFiling[];
}

/**
 * A built index as plain data and one Int32Array, for the compiled-rule cache (issue 19 §2): a warm start
 * reads the postings in place (views of `ints`) instead of filing every witness again.
 */
export interface PackedIndex {
  /** Per field, its name, then its exact keys. */
  readonly texts: readonly string[];
  /** Every field's number keys, in field order. */
  readonly numbers: readonly number[];
  /**
   * rules, witnessed, the preset's length, keywordRules' length, whether there is a keyword automaton, the
   * field count; the preset's words and keywordRules; per field, its exact and number key counts and its
   * automata (SUBSTRINGS | PREFIXES | SUFFIXES); per posting list (each field's exact keys', number keys', then its
   * present list) its end in the data; the data.
   */
  readonly ints: Int32Array;
}

const SUBSTRINGS = 1;
const PREFIXES = 2;
const SUFFIXES = 4;
/** Ints per field in a PackedIndex's shapes. */
const FIELD_SHAPE = 3;
/** Counts at the start of a PackedIndex's ints. */
const PACKED_HEAD = 6;

function fileWitnesses(
  witnesses: readonly (readonly Witness[])[],
  literals: readonly string[],
  literalRules: readonly number[],
  automata: AutomatonSupply,
): Filing {
  const words = ruleBits(witnesses.length).length;
  const slotBits = words * 32;
  const literalBase = MAX_WITNESSES * slotBits;
  const preset = new Uint32Array(words * MAX_WITNESSES + ruleBits(literals.length).length);
  const byField = new Map<string, FieldPostings>();
  const keywords = new Map<string, number[]>();
  literals.forEach((l, id) => push(keywords, l, literalBase + id));
  const keywordRules = new Set<number>(literalRules);
  let witnessed = 0;
  witnesses.forEach((ws, rule) => {
    if (ws.length > MAX_WITNESSES) throw new Error(`rule ${rule} has more than ${MAX_WITNESSES} witnesses`);
    if (ws.length > 0) witnessed++;
    for (let slot = ws.length; slot < MAX_WITNESSES; slot++) markAll(Int32Array.of(slot * slotBits + rule), preset);
    ws.forEach((w, slot) => {
      for (const p of w) fileProbe(p, slot * slotBits + rule, byField, keywords);
    });
    if (ws.some((w) => w.some((p) => p.kind === 'keyword'))) keywordRules.add(rule);
  });
  // The automata in the order a PackedIndex asks for them again: the keywords', then each field's.
  const keywordAutomaton = keywords.size > 0 ? automata.ahoCorasick(keywords, DENSE_ROWS, ADAPTIVE_ROWS) : null;
  const fields = [...byField].map(([name, f]) => ({
    name,
    exact: freeze(f.exact),
    numbers: freeze(f.numbers),
    substrings: f.subs.size > 0 ? automata.ahoCorasick(f.subs, DENSE_ROWS, ADAPTIVE_ROWS) : null,
    prefixes: f.prefixes.size > 0 ? automata.affixTrie(f.prefixes, false) : null,
    suffixes: f.suffixes.size > 0 ? automata.affixTrie(f.suffixes, true) : null,
    present: Int32Array.from(new Set(f.present)),
  }));
  return {
    rules: witnesses.length,
    witnessed,
    preset,
    keywordRules: Int32Array.from([...keywordRules].sort((a, b) => a - b)),
    keywords: keywordAutomaton,
    fields,
  };
}

function packFiling(f: Filing): PackedIndex {
  const texts: string[] = [];
  const numbers: number[] = [];
  const shapes: number[] = [];
  const lists: Int32Array[] = [];
  for (const field of f.fields) {
    texts.push(field.name);
    for (const [key, list] of field.exact) {
      texts.push(key);
      lists.push(list);
    }
    for (const [n, list] of field.numbers) {
      numbers.push(n);
      lists.push(list);
    }
    lists.push(field.present);
    const automata = (field.substrings !== null ? SUBSTRINGS : 0) | (field.prefixes !== null ? PREFIXES : 0) | (field.suffixes !== null ? SUFFIXES : 0);
    shapes.push(field.exact.size, field.numbers.size, automata);
  }
  const ends: number[] = [];
  let size = 0;
  for (const list of lists) ends.push((size += list.length));
  const head = [f.rules, f.witnessed, f.preset.length, f.keywordRules.length, f.keywords !== null ? 1 : 0, f.fields.length];
  const parts: ArrayLike<number>[] = [head, f.preset, f.keywordRules, shapes, ends, ...lists];
  const ints = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
  // A preset word above 2^31 lands as its two's complement: the same bits, read back as a Uint32Array view.
  parts.reduce((at, p) => (ints.set(p, at), at + p.length), 0);
  return { texts, numbers, ints };
}

/** The filing in `packed`, its postings and preset views of `packed.ints`. Throws when the parts do not add up. */
function unpackFiling(packed: PackedIndex, automata: AutomatonSupply): Filing {
  const { ints, texts, numbers } = packed;
  let at = 0;
  const view = (n: number): Int32Array => {
    if (!(n >= 0) || at + n > ints.length) throw new Error('candidate index: a packed part runs past its end');
    const out = ints.subarray(at, at + n);
    at += n;
    return out;
  };
  const [rules, witnessed, presetLength, keywordRulesLength, hasKeywords, fieldCount] = Array.from(view(PACKED_HEAD)) as [number, number, number, number, number, number];
  const presetWords = view(presetLength);
  const preset = new Uint32Array(presetWords.buffer, presetWords.byteOffset, presetLength);
  const keywordRules = view(keywordRulesLength);
  const keywords = hasKeywords === 1 ? automata.storedAhoCorasick(DENSE_ROWS, ADAPTIVE_ROWS) : null;
  const shapes = view(FIELD_SHAPE * fieldCount);
  let listCount = 0;
  for (let f = 0; f < fieldCount; f++) listCount += (shapes[FIELD_SHAPE * f] as number) + (shapes[FIELD_SHAPE * f + 1] as number) + 1;
  const ends = view(listCount);
  const data = view(ints.length - at);
  let list = 0;
  const nextList = (): Int32Array => {
    const start = list === 0 ? 0 : (ends[list - 1] as number);
    const end = ends[list++] as number;
    if (!(start <= end && end <= data.length)) throw new Error('candidate index: a posting list runs past the data');
    return data.subarray(start, end);
  };
  let text = 0;
  let number = 0;
  const fields: FieldFiling[] = [];
  for (let f = 0; f < fieldCount; f++) {
    const name = texts[text++];
    if (name === undefined) throw new Error('candidate index: fewer field names than fields');
    const exact = new Map<string, Int32Array>();
    for (let i = shapes[FIELD_SHAPE * f] as number; i > 0; i--) exact.set(texts[text++] as string, nextList());
    const numeric = new Map<number, Int32Array>();
    for (let i = shapes[FIELD_SHAPE * f + 1] as number; i > 0; i--) numeric.set(numbers[number++] as number, nextList());
    const present = nextList();
    const kinds = shapes[FIELD_SHAPE * f + 2] as number;
    fields.push({
      name,
      exact,
      numbers: numeric,
      present,
      substrings: (kinds & SUBSTRINGS) !== 0 ? automata.storedAhoCorasick(DENSE_ROWS, ADAPTIVE_ROWS) : null,
      prefixes: (kinds & PREFIXES) !== 0 ? automata.storedAffixTrie(false) : null,
      suffixes: (kinds & SUFFIXES) !== 0 ? automata.storedAffixTrie(true) : null,
    });
  }
  if (text !== texts.length || number !== numbers.length || list !== listCount || (listCount > 0 ? ends[listCount - 1] : 0) !== data.length) {
    throw new Error('candidate index: packed keys and lists disagree');
  }
  return { rules, witnessed, preset, keywordRules, keywords, fields };
}

/** Bit set of rule indices, one bit per rule. */
export function ruleBits(ruleCount: number): Uint32Array {
  return new Uint32Array(Math.ceil(ruleCount / 32));
}

export class CandidateIndex {
  /** Per slot, the rules that need no witness in that slot. */
  private readonly preset: Uint32Array;
  /** Per slot, the rules whose witness in that slot this event carries (reused). */
  private readonly marks: Uint32Array;
  /** Where a value's postings are gathered before they are cached; all zero between uses. */
  private readonly scratch: Uint32Array;
  private readonly taker = new BitTaker();
  private readonly words: number;
  /**
   * Probes by event key: the event's own keys are looked up here (far fewer than fields). Keys no rule
   * names join (up to UNINDEXED_KEYS of them) for their keyword caches.
   */
  private readonly byKey: Map<string, KeyProbes>;
  private readonly indexedKeys: number;
  /** Per keyword leaf of the current event: the keyword cache of the key whose whole value it is, or null. */
  private readonly leafCaches: (ProbeCache | null)[] = [];
  /** Literals of keyword witnesses, scanned over the keyword leaves. */
  private readonly keywords: AhoCorasick | null;
  /**
   * Rules with a keyword witness or keyword literals: when routing skips them all, the keyword scan is
   * skipped too.
   */
  private readonly keywordRules: Int32Array;
  /** Bit of keyword literal 0 in `marks`. */
  private readonly literalBase: number;
  /** How many rules have a witness (for diagnostics and tests). */
  readonly witnessed: number;
  /** What the index was filed from (pack() stores it). */
  private readonly fields: readonly FieldFiling[];

  /**
   * `witnesses[i]` are rule i's required witnesses (at most MAX_WITNESSES); none: evaluate it always.
   * `literals` are the keyword literals to report (by id) and `literalRules` the rules that read them.
   * Or, instead of the witnesses, what `pack()` made of them (the compiled-rule cache): the index is then
   * unpacked, its postings read in place and its automata the next ones `automata` has stored.
   */
  constructor(
    witnesses: readonly (readonly Witness[])[] | PackedIndex,
    table: FieldTable,
    literals: readonly string[] = [],
    literalRules: readonly number[] = [],
    automata: AutomatonSupply = BUILD_AUTOMATA,
  ) {
    const filing = 'ints' in witnesses ? unpackFiling(witnesses, automata) : fileWitnesses(witnesses, literals, literalRules, automata);
    this.words = ruleBits(filing.rules).length;
    this.literalBase = MAX_WITNESSES * this.words * 32;
    const size = this.words * MAX_WITNESSES + ruleBits(literals.length).length;
    if (filing.preset.length !== size) throw new Error('candidate index: its bit sets do not fit the rules and literals');
    this.preset = filing.preset;
    this.marks = new Uint32Array(size);
    this.scratch = new Uint32Array(size);
    this.witnessed = filing.witnessed;
    this.keywords = filing.keywords;
    this.keywordRules = filing.keywordRules;
    this.fields = filing.fields;
    const own = new Map<string, FieldProbe>();
    const under = new Map<string, FieldProbe[]>();
    for (const f of filing.fields) {
      const probe = new FieldProbe(table.slot(f.name), f.exact, f.numbers, f.substrings, f.prefixes, f.suffixes, f.present);
      own.set(f.name, probe);
      const dot = f.name.indexOf('.');
      if (dot < 0) continue;
      const head = f.name.slice(0, dot);
      under.set(head, [...(under.get(head) ?? []), probe]);
    }
    this.byKey = new Map([...new Set([...own.keys(), ...under.keys()])].map((k) => [k, new KeyProbes(own.get(k) ?? null, under.get(k) ?? NO_PROBES)]));
    this.indexedKeys = this.byKey.size;
  }

  /** The index as plain data and one Int32Array, for the compiled-rule cache (see PackedIndex). */
  pack(): PackedIndex {
    return packFiling({ rules: this.words * 32, witnessed: this.witnessed, preset: this.preset, keywordRules: this.keywordRules, keywords: this.keywords, fields: this.fields });
  }

  /**
   * Overwrite `bits` with the candidate rules for the scope's current event. Rules marked in `skip` (the
   * logsource router's mask) may come out either way: the caller skips them.
   */
  probe(scope: EvalScope, bits: Uint32Array, skip: Uint8Array | null): void {
    const marks = this.marks;
    marks.set(this.preset);
    const event = scope.event;
    const kw = this.keywords;
    const scanKeywords = kw !== null && this.anyRouted(this.keywordRules, skip);
    let leaves: LeafList | null = null;
    if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
      // The keyword leaves are gathered in the same walk (when the keyword search covers the whole event),
      // each top-level string with its key's keyword cache.
      leaves = scanKeywords ? scope.openKeywordLeaves() : null;
      const caches = this.leafCaches;
      for (const key in event) {
        const v = ownValue(event, key);
        if (v === ABSENT) continue;
        const k = this.keyProbes(key, leaves !== null);
        // Own keys only, as collectKeywordLeaves reads them (ownValue lets inherited scalars through).
        if (leaves !== null && Object.hasOwn(event, key)) {
          const from = leaves.count;
          collectKeywordLeaves(v, leaves, 1);
          const cache = typeof v === 'string' && k !== null ? this.keywordCacheOf(k) : null;
          for (let i = from; i < leaves.count; i++) caches[i] = cache;
        }
        if (k === null) continue;
        if (k.own !== null) {
          // The event's own key is what the field resolves to (a literal key wins over a dotted path).
          scope.prime(k.own.slot, v);
          markAll(k.own.present, marks);
          this.probeValue(k.own, v, scope, marks, 0);
        }
        // A dotted path resolves through an object or array under its first segment (or a literal key,
        // probed above; probing a value twice marks nothing new).
        if (typeof v !== 'object' || v === null) continue;
        const under = k.under;
        for (let i = 0; i < under.length; i++) {
          const d = under[i] as FieldProbe;
          const raw = scope.resolve(d.slot);
          if (raw === ABSENT) continue;
          markAll(d.present, marks);
          this.probeValue(d, raw, scope, marks, 0);
        }
      }
    }
    if (scanKeywords) {
      const gathered = leaves !== null;
      if (gathered) scope.closeKeywordLeaves();
      const list = leaves ?? scope.keywordLeaves();
      const caches = this.leafCaches;
      for (let i = 0; i < list.count; i++) {
        const l = list.items[i];
        const hit =
          typeof l === 'string'
            ? this.scanKeywordLeaf(kw, l, gathered ? (caches[i] ?? null) : null, marks)
            : typeof l === 'number' && isDigitsNumber(l)
              ? kw.scanDigits(l, marks)
              : kw.scan(scope.keywordLower(i), marks);
        if (hit) scope.setKeywordLeafHit(i);
      }
      scope.setKeywordHits(marks, this.literalBase);
    }
    // A candidate carries the witness of every slot (or needs none there).
    const words = this.words;
    for (let w = 0; w < words; w++) {
      let all = marks[w] as number;
      for (let slot = 1; slot < MAX_WITNESSES; slot++) all &= marks[slot * words + w] as number;
      bits[w] = all;
    }
  }

  /** Scan a string keyword leaf (through the cache when it may repeat); whether some literal occurs in it. */
  private scanKeywordLeaf(kw: AhoCorasick, leaf: string, cache: ProbeCache | null, marks: Uint32Array): boolean {
    if (cache === null || leaf.length > MAX_CACHED_LENGTH || !cache.consult()) return (kw.scanLowered(leaf, marks) & SCAN_HIT) !== 0;
    let postings = cache.get(leaf);
    if (postings === undefined) {
      postings = (kw.scanLowered(leaf, this.scratch) & SCAN_HIT) !== 0 ? this.taker.take(this.scratch) : NO_POSTINGS;
      cache.put(leaf, postings);
    }
    markAll(postings, marks);
    return postings.length > 0;
  }

  /** The probes of an event key; a key no rule names gets an entry only when `join` (for its keyword cache). */
  private keyProbes(key: string, join: boolean): KeyProbes | null {
    const k = this.byKey.get(key);
    if (k !== undefined) return k;
    if (!join || this.byKey.size >= this.indexedKeys + UNINDEXED_KEYS) return null;
    const fresh = new KeyProbes(null, NO_PROBES);
    this.byKey.set(key, fresh);
    return fresh;
  }

  private keywordCacheOf(k: KeyProbes): ProbeCache {
    return (k.keywordCache ??= new ProbeCache(FIELD_CACHE_VALUES));
  }

  /** Text without capitals: exact keys, prefixes, suffixes and substrings. */
  private probeText(f: FieldProbe, text: string, marks: Uint32Array): void {
    this.probeExact(f, text, marks);
    if (f.prefixes !== null) f.prefixes.walk(text, false, marks);
    if (f.suffixes !== null) f.suffixes.walk(text, false, marks);
    if (f.substrings !== null) f.substrings.scan(text, marks);
  }

  private probeExact(f: FieldProbe, lower: string, marks: Uint32Array): void {
    if (f.exactLengths[lower.length] !== 1) return;
    const rules = f.exact.get(lower);
    if (rules !== undefined) markAll(rules, marks);
  }

  /**
   * Substrings are scanned with case folded on the fly; the lowercased copy is made only for an exact
   * lookup that may hit (lowercasing ASCII text keeps its length).
   */
  private probeString(f: FieldProbe, value: string, scope: EvalScope, marks: Uint32Array): void {
    // Affixes are walked with case folded too; at a non-ASCII character, again over the lowercase form.
    if (f.prefixes !== null && !f.prefixes.walk(value, true, marks)) f.prefixes.walk(scope.lowerOfField(f.slot, value) as string, false, marks);
    if (f.suffixes !== null && !f.suffixes.walk(value, true, marks)) f.suffixes.walk(scope.lowerOfField(f.slot, value) as string, false, marks);
    if (f.substrings === null && f.exact.size === 0) return;
    const ascii = f.substrings !== null ? (f.substrings.scanLowered(value, marks) & SCAN_NON_ASCII) === 0 : isAscii(value);
    if (!ascii || f.exactLengths[value.length] === 1) this.probeExact(f, scope.lowerOfField(f.slot, value) as string, marks);
  }

  private anyRouted(rules: Int32Array, skip: Uint8Array | null): boolean {
    if (skip === null) return rules.length > 0;
    for (let i = 0; i < rules.length; i++) if (skip[rules[i] as number] === 0) return true;
    return false;
  }

  private probeValue(f: FieldProbe, value: unknown, scope: EvalScope, marks: Uint32Array, depth: number): void {
    if (Array.isArray(value)) {
      if (depth > MAX_DEPTH) return;
      for (let i = 0; i < value.length; i++) this.probeValue(f, value[i], scope, marks, depth + 1);
      return;
    }
    if (value instanceof LeafList) {
      for (let i = 0; i < value.count; i++) this.probeValue(f, value.items[i], scope, marks, depth + 1);
      return;
    }
    switch (typeof value) {
      case 'string': {
        const cache = f.cache;
        if (cache === null) return;
        if (value.length > MAX_CACHED_LENGTH || !cache.consult()) {
          this.probeString(f, value, scope, marks);
          break;
        }
        let postings = cache.get(value);
        if (postings === undefined) {
          const scratch = this.scratch;
          this.probeString(f, value, scope, scratch);
          this.probeNumber(f, value, scratch);
          postings = this.taker.take(scratch);
          cache.put(value, postings);
        }
        markAll(postings, marks);
        // At depth 0 the value is the field's whole value (what its items resolve).
        if (depth === 0) scope.setValueId(f.slot, cache.lastId);
        return;
      }
      case 'number':
        // Its text only for literals that may hold it (String() allocates).
        if (f.exact.size > 0 || f.substrings !== null || f.prefixes !== null || f.suffixes !== null) this.probeText(f, String(value), marks);
        break;
      case 'boolean':
        this.probeText(f, value ? 'true' : 'false', marks);
        break;
      default:
        return;
    }
    this.probeNumber(f, value, marks);
  }

  private probeNumber(f: FieldProbe, value: unknown, marks: Uint32Array): void {
    if (f.numbers.size === 0) return;
    const n = numericValue(value);
    if (Number.isNaN(n)) return;
    const rules = f.numbers.get(n);
    if (rules !== undefined) markAll(rules, marks);
  }
}
