// Where an event's logsource comes from for routing (`--logsource-routing`): fixed per input
// (`--event-logsource product=windows,service=sysmon`) or read from the event's own fields
// (`--logsource-field-map product=…,category=…,service=…`; defaults `product`, `category`, `service`).
import type { EventLogsource } from './engine/index.js';

export type LogsourceAttribute = 'product' | 'category' | 'service';
export const LOGSOURCE_ATTRIBUTES: readonly LogsourceAttribute[] = ['product', 'category', 'service'];

export interface LogsourceRouting {
  readonly fieldMap?: Readonly<Partial<Record<LogsourceAttribute, string>>>;
  readonly fixed?: EventLogsource;
}

/** `k=v,k=v` with keys among product/category/service; throws a plain Error naming the bad part. */
export function parseLogsourcePairs(text: string): Partial<Record<LogsourceAttribute, string>> {
  const out: Partial<Record<LogsourceAttribute, string>> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq < 0 || value === '' || !(LOGSOURCE_ATTRIBUTES as readonly string[]).includes(key)) {
      throw new Error(`'${part}' is not one of product=…, category=…, service=…`);
    }
    out[key as LogsourceAttribute] = value;
  }
  return out;
}

/** Returns the extractor; `undefined` from it means "no logsource: evaluate every rule". */
export function createLogsourceExtractor(routing: LogsourceRouting): (event: Readonly<Record<string, unknown>>) => EventLogsource | undefined {
  const fixed = routing.fixed;
  if (fixed !== undefined && Object.keys(fixed).length > 0) return () => fixed;
  const product = routing.fieldMap?.product ?? 'product';
  const category = routing.fieldMap?.category ?? 'category';
  const service = routing.fieldMap?.service ?? 'service';
  return (event) => {
    const p = event[product];
    const c = event[category];
    const s = event[service];
    if (typeof p !== 'string' && typeof c !== 'string' && typeof s !== 'string') return undefined;
    return {
      ...(typeof p === 'string' ? { product: p } : {}),
      ...(typeof c === 'string' ? { category: c } : {}),
      ...(typeof s === 'string' ? { service: s } : {}),
    };
  };
}
