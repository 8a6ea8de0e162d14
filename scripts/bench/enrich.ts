// Enrichment benchmark (issue 15): cost per result through the stage for one `template` enricher
// (target ≤ 2 µs), on the detection results the alert bench uses, beside the parse the stages share.
// Run after `npm run build`: `node dist/scripts/bench/enrich.js`.
import pino from 'pino';
import { Registry } from 'prom-client';
import { createMetrics } from '../../protocol/index.js';
import { compileScope, compileTemplate, EnrichStage, systemClock } from '../../streams/index.js';
import type { CommittedResult } from '../../streams/index.js';
import { line } from './alert.js';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import { stageCost } from './stage-cost.js';

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

/** µs per result through `apply` (scope, render, append `enrichments`), batches of 500, beside the shared parse. */
export function runEnrichBench(): BenchRow[] {
  const s = stage();
  const lane = Array.from({ length: RESULTS }, (_, i) => line(i));
  const apply = (lines: readonly CommittedResult[]): void => {
    for (let i = 0; i < lines.length; i += BATCH) s.apply(lines.slice(i, i + BATCH));
  };
  // The first round warms the JIT up.
  apply(lane.map(({ result_id, head, text }) => ({ result_id, head, text })));
  return stageCost({ stage: 'enrich_template_cost_per_result', parse: 'enrich_result_parse_per_result', ratio: 'enrich_template_cost_over_parse', withParse: 'enrich_template_cost_with_parse_over_parse' }, lane, apply);
}

if (isMain(import.meta.url)) printRows('Enrichment', runEnrichBench());
