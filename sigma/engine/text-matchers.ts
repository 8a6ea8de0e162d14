// String values (§2.6, §3.3.1, §3.3.6, §3.3.15, §5.5, §5.7): literals are lowercased once at compile time
// unless `cased`; the event side arrives lowercased from the caller. Plain shapes use string methods, any
// other wildcard layout compiles to one anchored RegExp.
import type { StringPart } from '../ast.js';
import { normaliseParts } from '../value/index.js';
import type { AffixTrie } from './affix-trie.js';
import type { AhoCorasick } from './aho-corasick.js';
import { BUILD_AUTOMATA, type AutomatonSupply } from './automaton-tables.js';
import { textOf } from './event-text.js';
import type { LeafMatcher, MatcherKind } from './leaf-matcher.js';

/** Parts with adjacent literals merged and runs of `*` collapsed, so pattern shapes are easy to recognise. */
export function patternParts(parts: readonly StringPart[]): StringPart[] {
  const merged = normaliseParts(parts);
  return merged.filter((p, i) => p.t !== 'any' || merged[i - 1]?.t !== 'any');
}

/** Lowercase every literal of already normalised parts (the case-insensitive form of a pattern). */
function lowerParts(parts: readonly StringPart[]): StringPart[] {
  return parts.map((p) => (p.t === 'lit' ? { t: 'lit', s: p.s.toLowerCase() } : p));
}

function eventText(leaf: unknown, lower: string | undefined, cased: boolean): string | undefined {
  return cased ? textOf(leaf) : lower;
}

/** A literal compared with the event text; each subclass is one comparison (monomorphic per class). */
abstract class LiteralText implements LeafMatcher {
  abstract readonly kind: MatcherKind;
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  constructor(
    readonly literal: string,
    readonly cased: boolean,
  ) {
    this.needsLower = !cased;
  }
  abstract test(leaf: unknown, lower: string | undefined): boolean;
}

class ExactText extends LiteralText {
  readonly kind: MatcherKind = 'exact';
  test(leaf: unknown, lower: string | undefined): boolean {
    return eventText(leaf, lower, this.cased) === this.literal;
  }
}

export class PrefixText extends LiteralText {
  readonly kind: MatcherKind = 'startswith';
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && s.startsWith(this.literal);
  }
}

export class SuffixText extends LiteralText {
  readonly kind: MatcherKind = 'endswith';
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && s.endsWith(this.literal);
  }
}

export class ContainsText extends LiteralText {
  readonly kind: MatcherKind = 'contains';
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && s.includes(this.literal);
  }
}

class GlobText implements LeafMatcher {
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  constructor(
    readonly kind: MatcherKind,
    readonly re: RegExp,
    readonly cased: boolean,
  ) {
    this.needsLower = !cased;
  }
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && this.re.test(s);
  }
}

const ITEM_DENSE_ROWS = 16;

/** Many `contains` literals of one item: one automaton pass instead of a loop of `includes`. */
export class ContainsAnyText implements LeafMatcher {
  readonly kind: MatcherKind = 'contains';
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  readonly automaton: AhoCorasick;
  constructor(
    readonly literals: readonly string[],
    readonly cased: boolean,
    automata: AutomatonSupply = BUILD_AUTOMATA,
  ) {
    this.needsLower = !cased;
    // One automaton per item, possibly thousands of them: a few dense rows each keep the memory small.
    this.automaton = automata.ahoCorasick(new Map(literals.map((l) => [l, [0]])), ITEM_DENSE_ROWS);
  }
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && this.automaton.occursIn(s);
  }
}

/** Many `startswith` (or `endswith`) literals of one item: one walk down a trie instead of a loop. */
export class AffixAnyText implements LeafMatcher {
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  readonly kind: MatcherKind;
  private readonly trie: AffixTrie;
  constructor(
    readonly literals: readonly string[],
    readonly cased: boolean,
    readonly fromEnd: boolean,
    automata: AutomatonSupply = BUILD_AUTOMATA,
  ) {
    this.needsLower = !cased;
    this.kind = fromEnd ? 'endswith' : 'startswith';
    this.trie = automata.affixTrie(new Map(literals.map((l) => [l, [0]])), fromEnd);
  }
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && this.trie.hasKeyOf(s);
  }
}

/** Many exact literals of one item (IOC lists): one Set lookup instead of a loop. */
export class TextSet implements LeafMatcher {
  readonly kind: MatcherKind = 'one_of';
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  constructor(
    readonly literals: ReadonlySet<string>,
    readonly cased: boolean,
  ) {
    this.needsLower = !cased;
  }
  test(leaf: unknown, lower: string | undefined): boolean {
    const s = eventText(leaf, lower, this.cased);
    return s !== undefined && this.literals.has(s);
  }
}

// Only syntax characters may be escaped under the `u` flag.
const REGEX_SYNTAX = /[.*+?^${}()|[\]\\/]/g;
const DASH_CLASS = '[-/\\u2013\\u2014\\u2015]';

/** Anchored RegExp source for a glob (flags `s` and `u`: `*` crosses newlines, `?` is one code point). */
export function globSource(parts: readonly StringPart[]): string {
  let src = '^';
  for (const p of parts) {
    switch (p.t) {
      case 'lit':
        src += p.s.replace(REGEX_SYNTAX, '\\$&');
        break;
      case 'any':
        src += '.*';
        break;
      case 'one':
        src += '.';
        break;
      case 'dash':
        src += DASH_CLASS;
        break;
      case 'ph':
        throw new Error(`placeholder %${p.name}% reached the glob compiler`);
      default: {
        const never: never = p;
        throw new Error(`unknown string part ${String(never)}`);
      }
    }
  }
  return `${src}$`;
}

function shapeKind(parts: readonly StringPart[]): MatcherKind {
  const first = parts[0]?.t === 'any';
  const last = parts[parts.length - 1]?.t === 'any';
  if (first && last) return 'contains';
  if (last) return 'startswith';
  if (first) return 'endswith';
  return 'exact';
}

/**
 * Compile a string value. `parts` must be normalised (see patternParts) and free of placeholders; the
 * pattern is lowercased here unless `cased`.
 */
export function compileText(normalised: readonly StringPart[], cased: boolean): LeafMatcher {
  const parts = cased ? normalised : lowerParts(normalised);
  const n = parts.length;
  const lit = (i: number): string | undefined => {
    const p = parts[i];
    return p?.t === 'lit' ? p.s : undefined;
  };
  const isAny = (i: number): boolean => parts[i]?.t === 'any';
  if (n === 0) return new ExactText('', cased);
  if (n === 1) {
    const l = lit(0);
    if (l !== undefined) return new ExactText(l, cased);
    if (isAny(0)) return new ContainsText('', cased);
  }
  if (n === 2) {
    const l0 = lit(0);
    const l1 = lit(1);
    if (l0 !== undefined && isAny(1)) return new PrefixText(l0, cased);
    if (isAny(0) && l1 !== undefined) return new SuffixText(l1, cased);
  }
  if (n === 3 && isAny(0) && isAny(2)) {
    const l1 = lit(1);
    if (l1 !== undefined) return new ContainsText(l1, cased);
  }
  return new GlobText(shapeKind(parts), new RegExp(globSource(parts), 'su'), cased);
}
