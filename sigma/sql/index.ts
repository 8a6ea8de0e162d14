export { convertRules, type Conversion } from './convert-rules.js';
export { checkConvertOptions, DEFAULT_CONVERT_OPTIONS, SQL_TARGETS, type ConvertOptions, type SqlTarget } from './dialect.js';
export { formatQuery, OUTPUT_FORMATS,  type OutputFormat } from './format-output.js';
export {  InvalidIdentifier,  } from './sql-text.js';
