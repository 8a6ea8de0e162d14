export { detectionItemConditions, fieldNameConditions, ruleConditions } from './registry.js';
