import type fc from 'fast-check';
import { AlertPipeline } from '../../../actors/alert/index.js';
import type { AlertObserver } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';

const RULE = 'r-1';

/** A detection result of rule `rule` on `host` (and `user`), event retained. */
export function result(host: string, opts: { rule?: string; user?: string; level?: string } = {}): Record<string, unknown> {
  return {
    rule_title: opts.rule ?? 'Rule One',
    rule_id: opts.rule ?? RULE,
    level: opts.level ?? 'high',
    tags: ['attack.t1'],
    matched_selections: ['selection'],
    matched_fields: [{ field: 'Host', value: host }],
    event: { Computer: host, ...(opts.user !== undefined ? { User: opts.user } : {}) },
  };
}

/** An observer that records what the pipeline counted. */
export function countingObserver(): AlertObserver & { readonly counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const inc = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  return {
    counts,
    inhibited: (rule) => inc(`inhibited:${rule}`),
    silenced: () => inc('silenced'),
    dedup: (a) => inc(`dedup:${a}`),
    summary: (evicted) => inc(evicted ? 'evicted' : 'summary'),
    incident: (t) => inc(`incident:${t}`),
    overmerge: (g) => inc(`overmerge:${g}`),
  };
}

export function pipelineWith(file: AlertPipelineFile): AlertPipeline {
  const p = new AlertPipeline();
  p.load(file);
  return p;
}

/** A model-run command that prints as `name` (counterexamples). */
export function command<M extends object, R>(name: string, run: (m: M, r: R) => void): fc.Command<M, R> {
  return { check: () => true, run, toString: () => name };
}
