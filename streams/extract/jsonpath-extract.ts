import { query, type JsonValue } from 'jsonpath-rfc9535';
import parseJsonPath from 'jsonpath-rfc9535/parser';
import { collapseOutputs, ExtractCompileError, ExtractEvalError, firstLine, type Extractor } from './extractor.js';

/**
 * RFC 9535 JSONPath. The library parses on every query (about 8 µs, libraries.md §6); parsing once here
 * refuses a bad path at load. The node list is the output list.
 */
export function compileJsonPath(expression: string): Extractor {
  try {
    parseJsonPath(expression);
  } catch (err) {
    throw new ExtractCompileError('jsonpath', expression, firstLine(err), { cause: err });
  }
  const outputs = (input: unknown): unknown[] => {
    try {
      return query(input as JsonValue, expression);
    } catch (err) {
      throw new ExtractEvalError('jsonpath', expression, firstLine(err), { cause: err });
    }
  };
  return { language: 'jsonpath', expression, outputs, evaluate: (input) => collapseOutputs(outputs(input)) };
}
