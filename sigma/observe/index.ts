export { fieldKeys, LeafPaths } from './field-keys.js';
export { KeyShapeMemo, sameKeys } from './key-shape-memo.js';
export { ruleFieldSet } from './rule-fields.js';
export type { FieldOrigin, RuleFieldSet, RuleFieldUse } from './rule-fields.js';
