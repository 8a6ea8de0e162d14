// Pipeline condition types by YAML name, one registry per condition kind (sigma-semantics.md §8.5).
import type { FieldPredicate, ItemPredicate, RulePredicate, UnitDef } from '../types.js';
import * as item from './detection-item/index.js';
import * as field from './field-name/index.js';
import * as processingState from './processing-state.js';
import * as rule from './rule/index.js';

export const ruleConditions: Readonly<Record<string, UnitDef<RulePredicate>>> = {
  logsource: rule.logsource,
  contains_detection_item: rule.containsDetectionItem,
  contains_field: rule.containsField,
  processing_item_applied: rule.processingItemApplied,
  processing_state: processingState.rule,
  is_sigma_rule: rule.isSigmaRule,
  is_sigma_correlation_rule: rule.isSigmaCorrelationRule,
  rule_attribute: rule.ruleAttribute,
  tag: rule.tag,
};

export const detectionItemConditions: Readonly<Record<string, UnitDef<ItemPredicate>>> = {
  match_string: item.matchString,
  match_value: item.matchValue,
  contains_wildcard: item.containsWildcard,
  is_null: item.isNull,
  processing_item_applied: item.processingItemApplied,
  processing_state: processingState.detectionItem,
};

export const fieldNameConditions: Readonly<Record<string, UnitDef<FieldPredicate>>> = {
  include_fields: field.includeFields,
  exclude_fields: field.excludeFields,
  processing_item_applied: field.processingItemApplied,
  processing_state: processingState.fieldName,
};
