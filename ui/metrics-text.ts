// Reading the Prometheus text exposition the daemon serves, and rates from successive status reads
// (no DOM here, so node tests import it).

export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Samples by metric name; comments and malformed lines are skipped. */
export function parseMetrics(text: string | undefined): Map<string, MetricSample[]> {
  const out = new Map<string, MetricSample[]>();
  for (const line of (text ?? '').split('\n')) {
    const m = LINE.exec(line);
    if (m === null || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) {
      // A label named `__proto__` is a label like any other: defined, not assigned through the prototype setter.
      const text = (l[2] as string).replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
      Object.defineProperty(labels, l[1] as string, { value: text, enumerable: true, writable: true, configurable: true });
    }
    const value = Number(m[3]);
    if (Number.isNaN(value)) continue;
    const list = out.get(m[1] as string) ?? [];
    list.push({ labels, value });
    out.set(m[1] as string, list);
  }
  return out;
}

export interface Sample {
  /** Seconds. */
  readonly at: number;
  readonly events: number;
  readonly matches: number;
}

/** Per-second rates between successive samples of a counter (a counter that went down, a restart, counts as 0). */
export function rates(samples: readonly Sample[], key: 'events' | 'matches'): number[] {
  const out: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1] as Sample;
    const b = samples[i] as Sample;
    const dt = b.at - a.at;
    out.push(dt > 0 ? Math.max(0, b[key] - a[key]) / dt : 0);
  }
  return out;
}
