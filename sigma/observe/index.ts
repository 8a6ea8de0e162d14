export { fieldKeys } from './field-keys.js';
export { ruleFieldSet } from './rule-fields.js';
export type { FieldOrigin, RuleFieldSet, RuleFieldUse } from './rule-fields.js';
