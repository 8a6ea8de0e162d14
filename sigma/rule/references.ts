// Cross-document checks (sigma-semantics §1.8, §6.7): unique ids and names, resolvable correlation
// references, no cycles, bounded chain depth; and an order in which referenced rules come first.
import type { CorrelationRule, SigmaDocument } from '../ast.js';
import { documentLoc } from './document-loc.js';
import { SigmaError } from '../errors.js';
import type { SigmaWarning } from '../errors.js';
import { buildRuleIndex, findRule } from './rule-index.js';
import type { ReferencableRule, RuleIndex } from './rule-index.js';

export const MAX_CHAIN_DEPTH = 10;

export interface ReferenceResult {
  readonly errors: SigmaError[];
  readonly warnings: SigmaWarning[];
  /** Documents that must not be used: later duplicates, and correlations with broken references. */
  readonly rejected: ReadonlySet<SigmaDocument>;
  /** What each accepted correlation's `rules` resolve to, in `rules` order. */
  readonly references: ReadonlyMap<CorrelationRule, readonly ReferencableRule[]>;
}

export function resolveReferences(docs: readonly SigmaDocument[]): ReferenceResult {
  const errors: SigmaError[] = [];
  const warnings: SigmaWarning[] = [];
  const rejected = rejectDuplicates(docs, errors);
  const accepted = docs.filter((d) => !rejected.has(d));
  const index = buildRuleIndex(accepted);
  const references = new Map<CorrelationRule, readonly ReferencableRule[]>();

  for (const doc of accepted) {
    if (doc.kind !== 'correlation') continue;
    const targets = resolveCorrelation(doc, index, errors, warnings);
    if (targets) references.set(doc, targets);
    else rejected.add(doc);
  }
  rejectCycles(references, rejected, errors);
  rejectDependents(references, rejected, errors);
  for (const c of [...references.keys()]) if (rejected.has(c)) references.delete(c);
  warnDeepChains(references, warnings);
  return { errors, warnings, rejected, references };
}

/** Documents with referenced rules placed before the correlations that use them; otherwise stable. */
export function orderByReferences(docs: readonly SigmaDocument[]): SigmaDocument[] {
  const index = buildRuleIndex(docs);
  const ordered: SigmaDocument[] = [];
  const seen = new Set<SigmaDocument>();
  const visit = (doc: SigmaDocument): void => {
    if (seen.has(doc)) return;
    seen.add(doc);
    if (doc.kind === 'correlation') {
      for (const ref of doc.rules) {
        const target = findRule(index, ref);
        if (target && docs.includes(target)) visit(target);
      }
    }
    ordered.push(doc);
  };
  docs.forEach(visit);
  return ordered;
}


function rejectDuplicates(docs: readonly SigmaDocument[], errors: SigmaError[]): Set<SigmaDocument> {
  const rejected = new Set<SigmaDocument>();
  const seen = { id: new Map<string, SigmaDocument>(), name: new Map<string, SigmaDocument>() };
  for (const doc of docs) {
    for (const key of ['id', 'name'] as const) {
      const value = doc[key];
      if (value === undefined) continue;
      const first = seen[key].get(value);
      if (!first) {
        seen[key].set(value, doc);
        continue;
      }
      const at = `${first.file}${first.doc > 0 ? ` (document ${first.doc + 1})` : ''}`;
      errors.push(new SigmaError('parse', key === 'id' ? 'DuplicateId' : 'DuplicateName', `${key} '${value}' is already used by '${first.title}' in ${at}`, documentLoc(doc, [key])));
      rejected.add(doc);
    }
  }
  return rejected;
}

function resolveCorrelation(
  doc: CorrelationRule,
  index: RuleIndex,
  errors: SigmaError[],
  warnings: SigmaWarning[],
): ReferencableRule[] | undefined {
  const targets: ReferencableRule[] = [];
  let ok = true;
  doc.rules.forEach((ref, i) => {
    const target = findRule(index, ref);
    if (target) targets.push(target);
    else {
      errors.push(new SigmaError('correlation', 'UnknownReference', `no rule has id or name '${ref}'`, documentLoc(doc, ['correlation', 'rules', i])));
      ok = false;
    }
  });
  for (const [alias, mapping] of Object.entries(doc.aliases)) {
    for (const ref of Object.keys(mapping)) {
      const path = ['correlation', 'aliases', alias, ref];
      const target = findRule(index, ref);
      if (!target) {
        errors.push(new SigmaError('correlation', 'UnknownReference', `alias refers to unknown rule '${ref}'`, documentLoc(doc, path)));
        ok = false;
      } else if (!targets.includes(target)) {
        warnings.push({ code: 'AliasRuleNotCorrelated', message: `alias names rule '${ref}', which the correlation does not reference`, loc: documentLoc(doc, path) });
      }
    }
  }
  return ok ? targets : undefined;
}

function rejectCycles(references: ReadonlyMap<CorrelationRule, readonly ReferencableRule[]>, rejected: Set<SigmaDocument>, errors: SigmaError[]): void {
  const state = new Map<CorrelationRule, 'open' | 'done'>();
  const stack: CorrelationRule[] = [];
  const visit = (c: CorrelationRule): void => {
    state.set(c, 'open');
    stack.push(c);
    for (const t of references.get(c) ?? []) {
      if (t.kind !== 'correlation') continue;
      if (state.get(t) === 'open') {
        const cycle = stack.slice(stack.indexOf(t));
        const names = [...cycle, t].map((r) => r.name ?? r.id ?? r.title).join(' → ');
        for (const member of cycle) {
          if (rejected.has(member)) continue;
          rejected.add(member);
          errors.push(new SigmaError('correlation', 'ReferenceCycle', `correlation references form a cycle: ${names}`, documentLoc(member, ['correlation', 'rules'])));
        }
      } else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(c, 'done');
  };
  for (const c of references.keys()) if (!state.has(c)) visit(c);
}

// A correlation built on a rejected correlation cannot work either.
function rejectDependents(references: ReadonlyMap<CorrelationRule, readonly ReferencableRule[]>, rejected: Set<SigmaDocument>, errors: SigmaError[]): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const [c, targets] of references) {
      if (rejected.has(c)) continue;
      const broken = targets.find((t) => rejected.has(t));
      if (!broken) continue;
      rejected.add(c);
      changed = true;
      errors.push(new SigmaError('correlation', 'BrokenReference', `referenced correlation '${broken.name ?? broken.id ?? broken.title}' was rejected`, documentLoc(c, ['correlation', 'rules'])));
    }
  }
}

function warnDeepChains(references: ReadonlyMap<CorrelationRule, readonly ReferencableRule[]>, warnings: SigmaWarning[]): void {
  const depth = new Map<CorrelationRule, number>();
  const depthOf = (c: CorrelationRule): number => {
    const known = depth.get(c);
    if (known !== undefined) return known;
    let d = 1;
    for (const t of references.get(c) ?? []) if (t.kind === 'correlation') d = Math.max(d, 1 + depthOf(t));
    depth.set(c, d);
    return d;
  };
  for (const c of references.keys()) {
    const d = depthOf(c);
    if (d > MAX_CHAIN_DEPTH) {
      warnings.push({ code: 'ChainTooDeep', message: `correlation chain depth ${d} exceeds ${MAX_CHAIN_DEPTH}`, loc: documentLoc(c, ['correlation', 'rules']) });
    }
  }
}
