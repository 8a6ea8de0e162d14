// `npm run bench`: every benchmark in one run, printed as a table of figures and ratios.
import { runEngineBench, type BenchRow } from './engine.js';

function print(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n## ${title}`);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) console.log(`${r.name.padEnd(width)}  ${String(r.value).padStart(12)} ${r.unit}`);
}

const events = Number(process.env['BENCH_EVENTS'] ?? 20_000);
print('Engine (single thread, full SigmaHQ corpus)', await runEngineBench({ events }));
