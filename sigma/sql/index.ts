export { convertRules, type Conversion } from './convert-rules.js';
export { checkConvertOptions, DEFAULT_CONVERT_OPTIONS, SQL_TARGETS, type ConvertOptions, type SqlTarget } from './dialect.js';
export { formatQuery, OUTPUT_FORMATS, viewName, type OutputFormat } from './format-output.js';
export { IDENTIFIER, InvalidIdentifier, Unconvertible } from './sql-text.js';
