// A static check for regexes compiled from user input (rule `|re` values, pipeline conditions, schema
// signatures): it finds the shapes that make a backtracking engine take exponential time on a
// non-matching input, so they are refused at load instead of stalling evaluation. A repeated part R
// (a quantifier allowing 3 or more repetitions) is ambiguous when one input can be split over its
// repetitions in many ways:
// - R holds a repetition q that can end R (everything after q in R can be empty) and whose text can
//   also start R again, or that can start R and whose text can also end R: `(a+)+`, `(\w+\s?)*`,
//   `(x\w+)+`, `(.*a){3,}`;
// - R holds an alternation two of whose branches can start and end with the same character:
//   `(\w|\d)+`, `(a|ab|a)*`.
// Character sets are compared on a sample alphabet (ASCII and a few non-ASCII code points), which is
// exact for the patterns rules use. The check is conservative on those shapes and silent on
// polynomial ones (`\w+\w+x`, an unanchored `.*a.*b`, an ambiguous part repeated at most 4 times).
// A pattern that has such a shape runs on RE2 (linear time, compiled to WebAssembly) instead of V8.
import { RegExpParser } from '@eslint-community/regexpp';
import type { AST } from '@eslint-community/regexpp';
import { RE2 } from 're2-wasm';

const ALPHABET = [...Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)), '\u00a0', 'é', 'É', 'ſ', '\u212a', '\u0130', '\u2028', '中', '\u{1F600}'];
const ANY = (1n << BigInt(ALPHABET.length)) - 1n;
/** Up to this many repetitions an ambiguous part costs a polynomial of that degree: tolerated. */
const TOLERATED_REPEATS = 4;

/** What evaluation needs of a compiled regex; V8's RegExp and RE2 answer alike. */
export type SafeRegex = Pick<RegExp, 'test' | 'source' | 'flags'>;

export type BoundedRegex = { readonly ok: true; readonly re: SafeRegex } | { readonly ok: false; readonly error: string };

/**
 * A regex whose evaluation time is bounded by a polynomial in the input's length: `re` itself when
 * it has none of the exponential shapes, else the same pattern on RE2 (linear time). Refused when RE2
 * cannot express it (lookaround, backreferences).
 */
export function boundedRegex(re: RegExp): BoundedRegex {
  const why = catastrophicBacktracking(re);
  if (why === undefined) return { ok: true, re };
  try {
    return { ok: true, re: new RE2(re.source, re.unicode ? re.flags : `${re.flags}u`) };
  } catch (error) {
    return { ok: false, error: `regular expression may backtrack catastrophically (${why}) and RE2 cannot run it: ${error instanceof Error ? error.message : String(error)}` };
  }
}

interface Shape {
  readonly nullable: boolean;
  /** The characters a match can start with, as a bit set over ALPHABET. */
  readonly first: bigint;
  readonly last: bigint;
}

const EMPTY: Shape = { nullable: true, first: 0n, last: 0n };
const REPEATED_GROUP = /\)[*+{]/;
/** Sample characters per atom and flags: the same few classes (`\d`, `.`, `[a-z]`) recur across rules. */
const ATOMS = new Map<string, bigint>();

/** Why `re` may backtrack exponentially, or undefined when none of the known shapes is in it. */
export function catastrophicBacktracking(re: RegExp): string | undefined {
  // Only a repeated group can hold a repetition or an alternation: most patterns have none.
  if (!REPEATED_GROUP.test(re.source)) return undefined;
  const unicode = re.flags.includes('u');
  const unicodeSets = re.flags.includes('v');
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser().parsePattern(re.source, 0, re.source.length, { unicode, unicodeSets });
  } catch {
    // A pattern V8 compiled but the parser does not know: nothing to say about it.
    return undefined;
  }
  return new Analysis(re.flags.replace(/[gyd]/g, '')).find(pattern);
}

class Analysis {
  private readonly shapes = new Map<AST.Node, Shape>();

  constructor(private readonly flags: string) {}

  find(node: AST.Node): string | undefined {
    if (node.type === 'Quantifier' && node.max > TOLERATED_REPEATS) {
      const why = this.ambiguity(node.element);
      if (why !== undefined) return `${why} inside the repeated ${node.raw}`;
    }
    for (const child of children(node)) {
      const why = this.find(child);
      if (why !== undefined) return why;
    }
    return undefined;
  }

  /** What makes the repeated element `r` ambiguous across its repetitions. */
  private ambiguity(r: AST.Node): string | undefined {
    const outer = this.shape(r);
    for (const { node, path } of descendants(r)) {
      // A fixed count (`x{2}`) is a sequence: only a variable repetition can be split several ways.
      if (node.type === 'Quantifier' && node.max > node.min) {
        const inner = this.shape(node.element);
        if (inner.first === 0n) continue;
        if ((this.edgeNullable(path, 'after') && (outer.first & inner.first) !== 0n) || (this.edgeNullable(path, 'before') && (outer.last & inner.last) !== 0n)) {
          return `the repetition ${node.raw} can take what the next or previous repetition takes`;
        }
      }
      if ((node.type === 'Group' || node.type === 'CapturingGroup') && node.alternatives.length > 1) {
        const branches = node.alternatives.map((a) => this.shape(a));
        for (let i = 0; i < branches.length; i++) {
          for (let j = i + 1; j < branches.length; j++) {
            const a = branches[i] as Shape;
            const b = branches[j] as Shape;
            if ((a.first & b.first) !== 0n && (a.last & b.last) !== 0n) return `the alternatives of ${node.raw} overlap`;
          }
        }
      }
    }
    return undefined;
  }

  /** Whether everything after (or before) the path's node, up to the repeated element, can match empty. */
  private edgeNullable(path: readonly AST.Node[], side: 'after' | 'before'): boolean {
    for (let k = 1; k < path.length; k++) {
      const parent = path[k - 1] as AST.Node;
      if (parent.type !== 'Alternative') continue;
      const at = parent.elements.indexOf(path[k] as AST.Element);
      const rest = side === 'after' ? parent.elements.slice(at + 1) : parent.elements.slice(0, at);
      if (!rest.every((e) => this.shape(e).nullable)) return false;
    }
    return true;
  }

  private shape(node: AST.Node): Shape {
    let s = this.shapes.get(node);
    if (s === undefined) {
      s = this.compute(node);
      this.shapes.set(node, s);
    }
    return s;
  }

  private compute(node: AST.Node): Shape {
    switch (node.type) {
      case 'Alternative':
        return this.sequence(node.elements);
      case 'Pattern':
      case 'Group':
      case 'CapturingGroup':
        return node.alternatives.map((a) => this.shape(a)).reduce((a, b) => ({ nullable: a.nullable || b.nullable, first: a.first | b.first, last: a.last | b.last }));
      case 'Quantifier': {
        const e = this.shape(node.element);
        return { ...e, nullable: e.nullable || node.min === 0 };
      }
      case 'Character':
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass': {
        const set = this.atom(node.raw);
        return { nullable: false, first: set, last: set };
      }
      case 'Backreference':
        return { nullable: true, first: ANY, last: ANY };
      default:
        // Assertions match no character.
        return EMPTY;
    }
  }

  private sequence(elements: readonly AST.Node[]): Shape {
    const shapes = elements.map((e) => this.shape(e));
    const edge = (list: readonly Shape[], pick: (s: Shape) => bigint): bigint => {
      let set = 0n;
      for (const s of list) {
        set |= pick(s);
        if (!s.nullable) break;
      }
      return set;
    };
    return { nullable: shapes.every((s) => s.nullable), first: edge(shapes, (s) => s.first), last: edge([...shapes].reverse(), (s) => s.last) };
  }

  /** The sample characters one character-matching atom matches, under the pattern's flags. */
  private atom(raw: string): bigint {
    const key = `${this.flags}/${raw}`;
    let set = ATOMS.get(key);
    if (set === undefined) {
      const re = new RegExp(`^(?:${raw})$`, this.flags);
      set = ALPHABET.reduce((acc, c, i) => (re.test(c) ? acc | (1n << BigInt(i)) : acc), 0n);
      ATOMS.set(key, set);
    }
    return set;
  }
}

function children(node: AST.Node): readonly AST.Node[] {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return node.alternatives;
    case 'Alternative':
      return node.elements;
    case 'Quantifier':
      return [node.element];
    default:
      // Lookarounds are matched once per position, not repeated with the text: not searched.
      return [];
  }
}

/** Every node under `root` with the path from `root` to it. */
function descendants(root: AST.Node): { node: AST.Node; path: AST.Node[] }[] {
  const out: { node: AST.Node; path: AST.Node[] }[] = [];
  const walk = (node: AST.Node, path: AST.Node[]): void => {
    out.push({ node, path });
    for (const child of children(node)) walk(child, [...path, child]);
  };
  walk(root, [root]);
  return out;
}
