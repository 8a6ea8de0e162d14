// The rule field set the field observer joins against (daemon-semantics §13.1): every field name the
// loaded rules reference after pipeline transformation, with where it is referenced and by which rules.
import type { FIELD_ORIGINS } from '../../protocol/index.js';
import type { Detection, DetectionItem, SigmaValue } from '../ast.js';
import type { RuleSet } from '../rule-set.js';

export type FieldOrigin = (typeof FIELD_ORIGINS)[number];

export interface RuleFieldUse {
  readonly sources: ReadonlySet<FieldOrigin>;
  readonly titles: ReadonlySet<string>;
}

/** Field name → its origins and the titles of the rules referencing it. */
export type RuleFieldSet = ReadonlyMap<string, RuleFieldUse>;

/** Search identifiers a filter brought into the rule it targets (see sigma/rule/apply-filters.ts). */
const FILTER_IDENTIFIER = /^_filt\d+[vh]_/;

function valueFields(value: SigmaValue, out: string[]): void {
  if (value.kind === 'fieldref') out.push(value.field);
  else if (value.kind === 'expansion') for (const v of value.alternatives) valueFields(v, out);
}

function detectionFields(node: Detection | DetectionItem, out: string[]): void {
  if (node.kind === 'item') {
    if (node.field !== null) out.push(node.field);
    for (const v of node.values) valueFields(v, out);
    return;
  }
  for (const child of node.children) detectionFields(child, out);
}

export function ruleFieldSet(ruleSet: Pick<RuleSet, 'engine' | 'correlations'>): RuleFieldSet {
  const fields = new Map<string, { sources: Set<FieldOrigin>; titles: Set<string> }>();
  const add = (names: readonly string[], origin: FieldOrigin, title: string): void => {
    for (const name of names) {
      let use = fields.get(name);
      if (use === undefined) fields.set(name, (use = { sources: new Set(), titles: new Set() }));
      use.sources.add(origin);
      use.titles.add(title);
    }
  };
  for (const { rule } of ruleSet.engine.rules) {
    for (const [identifier, detection] of rule.detections) {
      const names: string[] = [];
      detectionFields(detection, names);
      add(names, FILTER_IDENTIFIER.test(identifier) ? 'filter' : 'detection', rule.title);
    }
    add(rule.fields ?? [], 'metadata', rule.title);
  }
  for (const c of ruleSet.correlations.correlations) {
    add([...c.groupFields.flat(), ...c.valueFields.flat()], 'correlation', c.rule.title);
    add(c.rule.fields ?? [], 'metadata', c.rule.title);
  }
  return fields;
}
