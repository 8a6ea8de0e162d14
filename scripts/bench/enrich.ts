// Enrichment benchmark (issue 15): cost per result through the stage for one `template` enricher
// (target ≤ 2 µs), on the detection results the alert bench uses. Run after `npm run build`:
// `node dist/scripts/bench/enrich.js`.
import pino from 'pino';
import { Registry } from 'prom-client';
import { createMetrics } from '../../protocol/index.js';
import { compileScope, compileTemplate, EnrichStage, systemClock } from '../../streams/index.js';
import type { CommittedResult } from '../../streams/index.js';
import { line } from './alert.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';

const RESULTS = 20_000;
const BATCH = 500;

function stage(): EnrichStage {
  const metrics = createMetrics(new Registry(), { groups: ['enrichment'] }).handles;
  const s = new EnrichStage({ log: pino({ level: 'silent' }), metrics, clock: systemClock, signal: new AbortController().signal });
  const template = compileTemplate('${detection.rule.title} on ${detection.event.Computer}: ${detection.fields.CommandLine}', 'detection', 'identity', {});
  s.load({
    enrichers: [{ id: 'summary', kind: 'detection', injectField: 'summary', timeoutMs: 5000, onError: 'skip', scope: compileScope({ levels: ['high'] }), sync: true, call: (r) => template.render(r) }],
    maxConcurrent: 16,
  });
  return s;
}

/** Median µs per result of `fn` over every batch (the first of 6 runs warms the JIT up). */
function perResult(batches: readonly CommittedResult[][], fn: (batch: readonly CommittedResult[]) => unknown): number {
  const runs: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t0 = performance.now();
    for (const b of batches) fn(b);
    if (r > 0) runs.push(((performance.now() - t0) * 1000) / RESULTS);
  }
  return median(runs);
}

/**
 * µs per result through `apply` (parse, scope, render, append `enrichments`), batches of 500, beside a
 * bare `JSON.parse` of the same results measured in the same run: parsing the result text is most of
 * the cost.
 */
export function runEnrichBench(): BenchRow[] {
  const s = stage();
  const batches: CommittedResult[][] = [];
  for (let i = 0; i < RESULTS; i += BATCH) batches.push(Array.from({ length: BATCH }, (_, k) => line(i + k)));
  const parse = perResult(batches, (b) => b.map((l) => JSON.parse(l.text) as unknown));
  const enrich = perResult(batches, (b) => s.apply(b));
  return [
    { name: 'enrich_template_cost_per_result', value: Number(enrich.toFixed(2)), unit: 'µs (median of 5; target ≤ 2)' },
    { name: 'enrich_json_parse_per_result', value: Number(parse.toFixed(2)), unit: 'µs (median of 5; the same results, parse only)' },
    { name: 'enrich_template_cost_over_parse', value: Number((enrich / parse).toFixed(2)), unit: 'x' },
  ];
}

if (isMain(import.meta.url)) printRows('Enrichment', runEnrichBench());
