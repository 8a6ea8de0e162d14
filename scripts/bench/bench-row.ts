// The one shape every benchmark reports, and how rows are printed.
import { pathToFileURL } from 'node:url';

export interface BenchRow {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export function printRows(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n## ${title}`);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) console.log(`${r.name.padEnd(width)}  ${String(r.value).padStart(12)} ${r.unit}`);
}

/** True when the module at `url` is the script node was started with (a benchmark's main guard). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}
