import { expect, test } from 'vitest';
import { detectionItemConditions, fieldNameConditions, ruleConditions, transformations } from '../../../sigma/pipeline/index.js';

// The type names of sigma-semantics.md §8.4 and §8.5 (tables), in table order.
const DIGEST_TRANSFORMATIONS = [
  'field_name_mapping', 'field_name_prefix_mapping', 'field_name_prefix', 'field_name_suffix', 'field_name_transform',
  'drop_detection_item', 'add_condition', 'change_logsource', 'replace_string', 'map_string', 'set_value', 'convert_type',
  'case', 'regex', 'hashes_fields', 'extract_fields', 'value_placeholders', 'wildcard_placeholders',
  'query_expression_placeholders', 'file_placeholders', 'http_placeholders', 'command_placeholders', 'set_state',
  'rule_failure', 'detection_item_failure', 'strict_field_mapping_failure', 'set_custom_attribute', 'nest', 'add_field',
  'remove_field', 'set_field',
];
const DIGEST_RULE_CONDITIONS = [
  'logsource', 'contains_detection_item', 'contains_field', 'processing_item_applied', 'processing_state', 'is_sigma_rule',
  'is_sigma_correlation_rule', 'rule_attribute', 'tag',
];
const DIGEST_ITEM_CONDITIONS = ['match_string', 'match_value', 'contains_wildcard', 'is_null', 'processing_item_applied', 'processing_state'];
const DIGEST_FIELD_CONDITIONS = ['include_fields', 'exclude_fields', 'processing_item_applied', 'processing_state'];

const registries = [
  ['transformations', transformations, DIGEST_TRANSFORMATIONS],
  ['rule conditions', ruleConditions, DIGEST_RULE_CONDITIONS],
  ['detection-item conditions', detectionItemConditions, DIGEST_ITEM_CONDITIONS],
  ['field-name conditions', fieldNameConditions, DIGEST_FIELD_CONDITIONS],
] as const;

test.each(registries)('%s are exactly the types of the digest table', (_name, registry, digest) => {
  expect(Object.keys(registry).sort()).toEqual([...digest].sort());
});

test.each(registries)('%s: each unit is registered under its own YAML name and rejects unknown parameters', (_name, registry) => {
  for (const [key, unit] of Object.entries(registry)) {
    expect(unit.type).toBe(key);
    expect(unit.params).toMatchObject({ type: 'object', additionalProperties: false });
  }
});
