import * as containsDetectionItem from './contains-detection-item.js';
import * as containsField from './contains-field.js';
import * as isSigmaCorrelationRule from './is-sigma-correlation-rule.js';
import * as isSigmaRule from './is-sigma-rule.js';
import * as logsource from './logsource.js';
import * as processingItemApplied from './processing-item-applied.js';
import * as ruleAttribute from './rule-attribute.js';
import * as tag from './tag.js';

export { containsDetectionItem, containsField, isSigmaCorrelationRule, isSigmaRule, logsource, processingItemApplied, ruleAttribute, tag };
