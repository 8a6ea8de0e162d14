// A deliberately simple reference evaluator for pipeline tests: full scan, no index, no compilation.
// Covers the value kinds pipelines produce (strings with wildcards, numbers, booleans, null, regex,
// expansions, keywords) with the pinned semantics (case-insensitive, `*` crosses newlines).
import type { Detection, DetectionItem, DetectionRule, SigmaValue, StringPart } from '../../../sigma/ast.js';
import { evaluateCondition, parseCondition, resolveSelectors } from '../../../sigma/condition/index.js';

type Json = unknown;

function lookup(event: Json, path: string): Json[] {
  if (typeof event !== 'object' || event === null) return [];
  const obj = event as Record<string, Json>;
  if (Object.hasOwn(obj, path)) return fan(obj[path]);
  const dot = path.indexOf('.');
  for (let i = dot; i >= 0; i = path.indexOf('.', i + 1)) {
    const head = path.slice(0, i);
    if (Object.hasOwn(obj, head)) return fan(obj[head]).flatMap((child) => lookup(child, path.slice(i + 1)));
  }
  return [];
}

function fan(v: Json): Json[] {
  return Array.isArray(v) ? v : [v];
}

function leaves(v: Json): Json[] {
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(leaves);
  return [v];
}

function globRegex(parts: readonly StringPart[], cased: boolean): RegExp {
  let src = '';
  for (const p of parts) {
    if (p.t === 'lit') src += p.s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (p.t === 'any') src += '.*';
    else if (p.t === 'one') src += '.';
    else if (p.t === 'dash') src += '[-/\u2013\u2014\u2015]';
    else throw new Error(`unresolved placeholder %${p.name}%`);
  }
  return new RegExp(`^${src}$`, cased ? 's' : 'is');
}

function valueMatches(v: SigmaValue, actual: Json): boolean {
  switch (v.kind) {
    case 'string':
      return (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean') && globRegex(v.parts, v.cased).test(String(actual));
    case 'number':
      return (typeof actual === 'number' && actual === v.value) || (typeof actual === 'string' && actual.trim() !== '' && Number(actual) === v.value);
    case 'bool':
      return actual === v.value || (typeof actual === 'string' && actual.toLowerCase() === String(v.value));
    case 'null':
      return actual === null;
    case 'regex':
      return typeof actual === 'string' && new RegExp(v.pattern, (v.flags.i ? 'i' : '') + (v.flags.m ? 'm' : '') + (v.flags.s ? 's' : '')).test(actual);
    case 'expansion':
      return v.alternatives.some((a) => valueMatches(a, actual));
    default:
      throw new Error(`naive evaluator does not support ${v.kind}`);
  }
}

function itemMatches(item: DetectionItem, event: Json): boolean {
  const result = (() => {
    if (item.field === null) {
      const all = leaves(event).filter((l) => l !== null);
      const test = (v: SigmaValue): boolean => all.some((a) => valueMatches(v, a));
      return item.linking === 'and' ? item.values.every(test) : item.values.some(test);
    }
    const actual = lookup(event, item.field);
    if (item.values.length === 0) return actual.length === 0 || actual.every((a) => a === null);
    const test = (v: SigmaValue): boolean => (v.kind === 'null' ? actual.length === 0 || actual.some((a) => a === null) : actual.some((a) => valueMatches(v, a)));
    return item.linking === 'and' ? item.values.every(test) : item.values.some(test);
  })();
  return result !== item.negated;
}

function detectionMatches(d: Detection, event: Json): boolean {
  const test = (c: Detection | DetectionItem): boolean => (c.kind === 'item' ? itemMatches(c, event) : detectionMatches(c, event));
  return d.linking === 'and' ? d.children.every(test) : d.children.some(test);
}

/** Does `rule` match `event`? `absent` are identifiers a pipeline emptied (pruned from the condition). */
export function naiveMatches(rule: DetectionRule, event: Json, absent: ReadonlySet<string> = new Set()): boolean {
  const ids = [...rule.detections.keys()];
  return rule.condition.some((text) => {
    const node = resolveSelectors(parseCondition(text), ids, absent);
    if (node === null) return false;
    return evaluateCondition(node, (id) => {
      const d = rule.detections.get(id);
      if (!d) throw new Error(`unknown identifier ${id}`);
      return detectionMatches(d, event);
    });
  });
}
