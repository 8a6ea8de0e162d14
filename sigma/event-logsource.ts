// Where an event's logsource comes from for routing (`--logsource-routing`): fixed per input
// (`--event-logsource product=windows,service=sysmon`) or read from the event's own fields
// (`--logsource-field-map product=…,category=…,service=…`; defaults `product`, `category`, `service`).
// `sigmad eval` and the daemon both use this module, so they accept, refuse and route alike.
import type { LogsourceMap } from '../protocol/index.js';
import type { EvalContext } from './engine/index.js';

const ATTRIBUTES = new Set(['product', 'service', 'category']);

/**
 * `product=windows,service=security,x=y`: known attributes, others under `custom`, `strict` accepted
 * and ignored (daemon-semantics §2.1). Throws a plain Error naming the part that is not `key=value`.
 */
export function parseLogsourcePairs(text: string): LogsourceMap {
  const out: { product?: string; service?: string; category?: string; custom?: Record<string, string> } = {};
  const custom: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq === -1 ? '' : part.slice(0, eq).trim();
    if (key === '') throw new Error(`expected key=value pairs, got ${part}`);
    const value = part.slice(eq + 1).trim();
    if (key === 'strict') continue;
    if (ATTRIBUTES.has(key)) out[key as 'product' | 'service' | 'category'] = value;
    else custom[key] = value;
  }
  if (Object.keys(custom).length > 0) out.custom = custom;
  return out;
}

/** How an event's logsource is found for routing. */
export type LogsourceOf = (event: Readonly<Record<string, unknown>>) => EvalContext | undefined;

const NO_CONTEXT: EvalContext = Object.freeze({});

/**
 * A fixed `--event-logsource` wins; otherwise each attribute is read from its `--logsource-field-map`
 * field (default: the attribute's own name). Non-string values are ignored.
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
