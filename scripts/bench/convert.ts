// `sigmad convert` figures: conversion time of the full SigmaHQ corpus per target (target < 2 s), and the
// time PostgreSQL takes to run every converted query over the regression events.
import { performance } from 'node:perf_hooks';
import { convertRules, type SqlTarget } from '../../sigma/sql/index.js';
import { loadCorpus, placeholderValues } from '../conformance/conformance.js';
import { loadRegressionCases } from '../conformance/regression-cases.js';
import { PostgresServer } from '../sql/databases.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';

const OPTIONS = { table: 'security_events', timestampField: 'time', jsonField: 'data' } as const;

export async function runConvertBench(): Promise<BenchRow[]> {
  const corpus = await loadCorpus([placeholderValues()]);
  const input = { detections: corpus.ruleSet.engine.rules.map((r) => r.rule), correlations: corpus.ruleSet.correlations.correlations };
  const rows: BenchRow[] = [];
  let postgresQueries: readonly string[] = [];
  for (const target of ['postgres', 'sqlite'] as const satisfies readonly SqlTarget[]) {
    const times: number[] = [];
    let converted = 0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const conversion = convertRules(input, target, OPTIONS);
      times.push(performance.now() - t0);
      converted = conversion.converted.length;
      if (target === 'postgres') postgresQueries = conversion.converted.map((q) => q.query);
    }
    rows.push({ name: `convert full corpus, ${target} (${converted} rules, median of 3)`, value: Math.round(median(times)), unit: 'ms' });
  }
  const events = (await loadRegressionCases()).flatMap((c) => c.decoded).map((data, i) => ({ id: i + 1, data }));
  const server = await PostgresServer.start();
  try {
    await server.load(events);
    const t0 = performance.now();
    for (const q of postgresQueries) await server.ids(q);
    const ms = performance.now() - t0;
    rows.push({ name: `PostgreSQL: every converted query over ${events.length} regression events`, value: Math.round(ms), unit: 'ms' });
    rows.push({ name: 'PostgreSQL: per query (mean)', value: Math.round((ms / postgresQueries.length) * 100) / 100, unit: 'ms' });
  } finally {
    await server.stop();
  }
  return rows;
}

if (isMain(import.meta.url)) printRows('sigmad convert', await runConvertBench());
