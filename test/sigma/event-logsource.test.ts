import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logsourceOf, parseLogsourcePairs } from '../../sigma/event-logsource.js';

describe('logsource for routing', () => {
  it('uses a fixed event logsource for every event', () => {
    const of = logsourceOf({}, { product: 'windows', service: 'security' });
    expect(of({ product: 'linux' })).toEqual({ logsource: { product: 'windows', service: 'security' } });
  });

  it('reads mapped string fields and ignores other values', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), (product, category) => {
        const of = logsourceOf({ product: 'os', category: 'kind' }, undefined);
        const event: Record<string, unknown> = { kind: category, service: 'sysmon' };
        if (product !== null) event['os'] = product;
        const ls = of(event)?.logsource ?? {};
        expect(ls.product).toBe(product ?? undefined);
        expect(ls.category).toBe(typeof category === 'string' ? category : undefined);
        expect(ls.service).toBe('sysmon');
      }),
    );
  });

  it('parses k=v pairs as the daemon flags do: unknown keys under custom, strict ignored, no `=` refused', () => {
    expect(parseLogsourcePairs('product=windows,x=y,strict=true')).toEqual({ product: 'windows', custom: { x: 'y' } });
    expect(() => parseLogsourcePairs('product')).toThrow(/key=value/);
  });
});
