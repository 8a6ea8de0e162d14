// A batch processor over an in-memory state store and the crash-test rules, as the daemon wires it.
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { CorrelationRuntime } from '../../actors/correlation/index.js';
import { createKindRegistry, MemoryBackend, openMemoryStateStore, recover, snapshotKinds } from '../../state/index.js';
import type { CrashHook, Recovered, StateStore } from '../../state/index.js';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { buildRuleSet } from '../../sigma/rule-set.js';
import type { RuleSet } from '../../sigma/rule-set.js';
import {
  BatchProcessor,
  carryOver,
  createBatchDetector,
  createCorrelationKinds,
  createDecoder,
  inlineDetector,
  definitionsRecord,
} from '../../streams/index.js';
import type {
  ActiveRules,
  CorrelationRecoveryReport,
  Detector,
  DlqWriter,
  DroppedCorrelationState,
  InputUnit,
  JournalBuffer,
  ResultLine,
  UnitOutcome,
} from '../../streams/index.js';
import { SimulatedClock, testContext } from './support.js';

export const CRASH_RULES = join(import.meta.dirname, '../fixtures/daemon/crash-rules');

export function ruleSetFrom(dir: string, edit: (file: string, text: string) => string = (_f, t) => t): RuleSet {
  const sources = readdirSync(dir)
    .sort()
    .map((f) => ({ file: join(dir, f), text: edit(f, readFileSync(join(dir, f), 'utf8')) }));
  return buildRuleSet(sources);
}

export interface Harness {
  readonly store: StateStore;
  readonly backend: MemoryBackend;
  readonly processor: BatchProcessor;
  readonly active: () => ActiveRules;
  readonly journal: JournalBuffer;
  readonly committed: ResultLine[];
  readonly ctx: ReturnType<typeof testContext>;
  readonly recovered: Recovered;
  /** What the recovery left out of the stored correlation state. */
  readonly lost: CorrelationRecoveryReport;
  snapshot(): Promise<boolean>;
  /** A hot reload as the daemon runs it (detection is inline, so the rules switch at once). */
  reload(ruleSet: RuleSet): Promise<readonly DroppedCorrelationState[]>;
  send(lines: readonly string[], key?: string): Promise<UnitOutcome>;
}

/** Inline detection of JSON lines, as `--detect-workers 0` wires it. */
export const inline = (ruleSet: RuleSet): Detector => inlineDetector(ruleSet, createBatchDetector({ format: 'json', syslogTzMinutes: 0, includeEvent: false }));

/**
 * Open (or reopen, with `backend`) a store and recover into a live processor; parse errors go to
 * `dlq` when given. `crash` is called at the named points of the batch processor and the store.
 */
export async function openHarness(
  ruleSet: RuleSet,
  backend = new MemoryBackend(),
  detector: Detector = inline(ruleSet),
  dlq?: (ctx: ReturnType<typeof testContext>) => DlqWriter,
  crash: CrashHook = () => undefined,
): Promise<Harness> {
  const clock = new SimulatedClock();
  const ctx = testContext(clock);
  const store = await openMemoryStateStore({ backend, sinks: ['s'], crashHook: crash });
  const journal: JournalBuffer = { at: clock.now(), drafts: [], tickedAt: -1 };
  const defs = ruleSet.correlations.correlations;
  const options = { record: (key: string, event: unknown) => journal.drafts.push({ at: journal.at, kind: 'corr', key, event }) };
  // Wired as the daemon wires it: the registry's correlation kinds host groups in the runtime in force.
  let active: ActiveRules = { ruleSet, runtime: new CorrelationRuntime(defs, options) };
  const correlationKinds = createCorrelationKinds(() => active.runtime, journal);
  const kinds = createKindRegistry(correlationKinds.kinds);
  const recovered = await recover(store, kinds, { mode: 'fail' });
  if (recovered.definitionsChanged) journal.drafts.push(definitionsRecord(defs, clock.now()));
  const committed: ResultLine[] = [];
  const processor = new BatchProcessor(ctx, {
    store,
    decoder: createDecoder({ format: 'json', syslog_tz_minutes: 0 }, ctx, dlq?.(ctx)),
    detector,
    rules: () => active,
    journal,
    source: 'http',
    crash,
    sinkRoom: () => Promise.resolve(),
    committed: (r) => committed.push(...r.map((c) => JSON.parse(c.text) as ResultLine)),
  });
  await processor.commitJournal();
  return {
    store,
    backend,
    processor,
    active: () => active,
    journal,
    committed,
    ctx,
    recovered,
    lost: correlationKinds.report(),
    snapshot: () => snapshotKinds(store, kinds, clock.now()),
    async reload(next) {
      // Inline detection builds from the rule set alone; the worker inputs are not read.
      await detector.prepare(next, { sources: [], pipelines: [], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false });
      detector.activate();
      const carried = carryOver(active.runtime, next.correlations.correlations, options);
      active = { ruleSet: next, runtime: carried.runtime };
      journal.drafts.push(definitionsRecord(next.correlations.correlations, clock.now()));
      await processor.commitJournal();
      return carried.dropped;
    },
    async send(lines, key) {
      let outcome: UnitOutcome | undefined;
      const unit: InputUnit = { lines, rejected: [], ...(key !== undefined ? { idempotencyKey: key } : {}), settle: (o) => (outcome = o) };
      await processor.process([unit], clock.now());
      if (outcome === undefined) throw new Error('unit not settled');
      return outcome;
    },
  };
}

/** A failed-logon event on `host` at second `s` of the lane. */
export function failedLogon(host: string, s: number): string {
  return JSON.stringify({ EventID: 4625, Computer: host, '@timestamp': new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString() });
}

/** One event of the crash rules' lane (see CRASH_RULES): which rule it feeds, on which host, how many seconds later. */
export interface CrashLaneEvent {
  readonly host: string;
  readonly gap: number;
  readonly kind: 'fail' | 'ok' | 'recon' | 'disc' | 'xfer';
}

export function crashLaneEvent(maxGap: number): fc.Arbitrary<CrashLaneEvent> {
  return fc.record({ host: fc.constantFrom('h1', 'h2'), gap: fc.integer({ min: 0, max: maxGap }), kind: fc.constantFrom('fail', 'ok', 'recon', 'disc', 'xfer') });
}

/** NDJSON lines of `events`; event time only moves forward (`clock.s`), across calls too, like the e2e lane. */
export function crashLaneLines(events: readonly CrashLaneEvent[], clock: { s: number }): string[] {
  return events.map((e) => {
    clock.s += e.gap;
    const base = { Computer: e.host, '@timestamp': new Date(Date.UTC(2024, 0, 1) + clock.s * 1000).toISOString() };
    const body =
      e.kind === 'fail'
        ? { EventID: 4625 }
        : e.kind === 'ok'
          ? { EventID: 4624, TargetUserName: `u${clock.s % 4}` }
          : e.kind === 'recon'
            ? { EventID: 1, CommandLine: 'whoami' }
            : e.kind === 'disc'
              ? { EventID: 1, CommandLine: 'net view' }
              : { EventID: 3, Bytes: (clock.s * 97) % 3000 };
    return JSON.stringify({ ...base, ...body });
  });
}
