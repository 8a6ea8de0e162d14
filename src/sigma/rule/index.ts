export { parseRuleText } from './parse-rule-text.js';
export type { LoadResult } from './load-result.js';
