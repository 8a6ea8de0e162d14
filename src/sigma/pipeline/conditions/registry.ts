// Pipeline condition types by YAML name, one registry per condition kind (sigma-semantics.md §8.5).
import type { FieldPredicate, ItemPredicate, RulePredicate, UnitDef } from '../types.js';
import * as containsWildcard from './detection-item/contains-wildcard.js';
import * as isNull from './detection-item/is-null.js';
import * as matchString from './detection-item/match-string.js';
import * as matchValue from './detection-item/match-value.js';
import * as itemProcessingItemApplied from './detection-item/processing-item-applied.js';
import * as excludeFields from './field-name/exclude-fields.js';
import * as includeFields from './field-name/include-fields.js';
import * as fieldProcessingItemApplied from './field-name/processing-item-applied.js';
import * as processingState from './processing-state.js';
import * as containsDetectionItem from './rule/contains-detection-item.js';
import * as containsField from './rule/contains-field.js';
import * as isSigmaCorrelationRule from './rule/is-sigma-correlation-rule.js';
import * as isSigmaRule from './rule/is-sigma-rule.js';
import * as logsource from './rule/logsource.js';
import * as ruleProcessingItemApplied from './rule/processing-item-applied.js';
import * as ruleAttribute from './rule/rule-attribute.js';
import * as tag from './rule/tag.js';

export const ruleConditions: Readonly<Record<string, UnitDef<RulePredicate>>> = {
  logsource,
  contains_detection_item: containsDetectionItem,
  contains_field: containsField,
  processing_item_applied: ruleProcessingItemApplied,
  processing_state: processingState.rule,
  is_sigma_rule: isSigmaRule,
  is_sigma_correlation_rule: isSigmaCorrelationRule,
  rule_attribute: ruleAttribute,
  tag,
};

export const detectionItemConditions: Readonly<Record<string, UnitDef<ItemPredicate>>> = {
  match_string: matchString,
  match_value: matchValue,
  contains_wildcard: containsWildcard,
  is_null: isNull,
  processing_item_applied: itemProcessingItemApplied,
  processing_state: processingState.detectionItem,
};

export const fieldNameConditions: Readonly<Record<string, UnitDef<FieldPredicate>>> = {
  include_fields: includeFields,
  exclude_fields: excludeFields,
  processing_item_applied: fieldProcessingItemApplied,
  processing_state: processingState.fieldName,
};
