import type { LogsourceMap } from '../protocol/config.js';
import type { JsonEvent } from '../protocol/decode/index.js';
import type { EvalContext } from '../sigma/engine/index.js';

/** How an event's logsource is found for routing: fixed, or read from the mapped fields. */
export type LogsourceOf = (event: JsonEvent) => EvalContext | undefined;

const NO_CONTEXT: EvalContext = Object.freeze({});

/**
 * `--logsource-routing`: a fixed `--event-logsource` wins; otherwise each attribute is read from its
 * `--logsource-field-map` field (default: the attribute's own name). Non-string values are ignored.
 */
export function logsourceOf(fieldMap: LogsourceMap, fixed: LogsourceMap | undefined): LogsourceOf {
  if (fixed !== undefined) {
    const context: EvalContext = { logsource: { ...(fixed.product !== undefined ? { product: fixed.product } : {}), ...(fixed.category !== undefined ? { category: fixed.category } : {}), ...(fixed.service !== undefined ? { service: fixed.service } : {}) } };
    return () => context;
  }
  const productField = fieldMap.product ?? 'product';
  const categoryField = fieldMap.category ?? 'category';
  const serviceField = fieldMap.service ?? 'service';
  return (event) => {
    const product = event[productField];
    const category = event[categoryField];
    const service = event[serviceField];
    if (typeof product !== 'string' && typeof category !== 'string' && typeof service !== 'string') return NO_CONTEXT;
    return {
      logsource: {
        ...(typeof product === 'string' ? { product } : {}),
        ...(typeof category === 'string' ? { category } : {}),
        ...(typeof service === 'string' ? { service } : {}),
      },
    };
  };
}
