export { parseCondition, MAX_CONDITION_DEPTH } from './parse-condition.js';
export { MAX_CONDITION_LENGTH } from './tokenize-condition.js';
export { printCondition } from './print-condition.js';
export { resolveSelectors } from './resolve-selectors.js';
export { selectorMatches } from './match-selector.js';
export { conditionIdentifiers } from './condition-identifiers.js';
export { evaluateCondition } from './evaluate-condition.js';
