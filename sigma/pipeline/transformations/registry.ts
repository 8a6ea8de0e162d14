// Transformation types by YAML name (sigma-semantics.md §8.4). Each unit is one file exporting
// `{ type, params, create }`.
import type { Transformation, UnitDef } from '../types.js';
import * as addCondition from './add-condition.js';
import * as addField from './add-field.js';
import * as caseTransformation from './case.js';
import * as changeLogsource from './change-logsource.js';
import * as commandPlaceholders from './command-placeholders.js';
import * as convertType from './convert-type.js';
import * as detectionItemFailure from './detection-item-failure.js';
import * as dropDetectionItem from './drop-detection-item.js';
import * as extractFields from './extract-fields.js';
import * as fieldNameMapping from './field-name-mapping.js';
import * as fieldNamePrefix from './field-name-prefix.js';
import * as fieldNamePrefixMapping from './field-name-prefix-mapping.js';
import * as fieldNameSuffix from './field-name-suffix.js';
import * as fieldNameTransform from './field-name-transform.js';
import * as filePlaceholders from './file-placeholders.js';
import * as hashesFields from './hashes-fields.js';
import * as httpPlaceholders from './http-placeholders.js';
import * as mapString from './map-string.js';
import * as nest from './nest.js';
import * as queryExpressionPlaceholders from './query-expression-placeholders.js';
import * as regex from './regex.js';
import * as removeField from './remove-field.js';
import * as replaceString from './replace-string.js';
import * as ruleFailure from './rule-failure.js';
import * as setCustomAttribute from './set-custom-attribute.js';
import * as setField from './set-field.js';
import * as setState from './set-state.js';
import * as setValue from './set-value.js';
import * as strictFieldMappingFailure from './strict-field-mapping-failure.js';
import * as valuePlaceholders from './value-placeholders.js';
import * as wildcardPlaceholders from './wildcard-placeholders.js';

export const transformations: Readonly<Record<string, UnitDef<Transformation>>> = {
  field_name_mapping: fieldNameMapping,
  field_name_prefix_mapping: fieldNamePrefixMapping,
  field_name_prefix: fieldNamePrefix,
  field_name_suffix: fieldNameSuffix,
  field_name_transform: fieldNameTransform,
  drop_detection_item: dropDetectionItem,
  add_condition: addCondition,
  change_logsource: changeLogsource,
  replace_string: replaceString,
  map_string: mapString,
  set_value: setValue,
  convert_type: convertType,
  case: caseTransformation,
  regex,
  hashes_fields: hashesFields,
  extract_fields: extractFields,
  value_placeholders: valuePlaceholders,
  wildcard_placeholders: wildcardPlaceholders,
  query_expression_placeholders: queryExpressionPlaceholders,
  file_placeholders: filePlaceholders,
  http_placeholders: httpPlaceholders,
  command_placeholders: commandPlaceholders,
  set_state: setState,
  rule_failure: ruleFailure,
  detection_item_failure: detectionItemFailure,
  strict_field_mapping_failure: strictFieldMappingFailure,
  set_custom_attribute: setCustomAttribute,
  nest,
  add_field: addField,
  remove_field: removeField,
  set_field: setField,
};
