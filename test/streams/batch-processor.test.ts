import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../state/index.js';
import type { InputUnit } from '../../streams/input-unit.js';
import { CRASH_RULES, failedLogon, openHarness, ruleSetFrom } from './pipeline-harness.js';
import { metricValue } from './support.js';

const RULES = ruleSetFrom(CRASH_RULES);
const whoami = (host: string, s: number) =>
  JSON.stringify({ EventID: 1, CommandLine: 'powershell whoami', Computer: host, '@timestamp': new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString() });

describe('batch processor', () => {
  it('commits results with ids from the input ordinal and result index, then settles the unit', async () => {
    const h = await openHarness(RULES);
    const outcome = await h.send([whoami('a', 1), 'not json', whoami('b', 2)]);
    expect(outcome).toEqual({ ok: true, accepted: 3, parseErrors: 1 });
    expect(h.store.readOutbox('s', 10).map((e) => e.result_id)).toEqual(['e000000000000-0', 'e000000000002-0']);
    expect(h.committed.map((r) => r.rule_title)).toEqual(['PowerShell Launch', 'PowerShell Launch']);
    expect(h.store.nextInputOrdinal).toBe(3);
    expect(await metricValue(h.ctx.registry, 'svc_events_processed_total')).toBe(2);
    expect(await metricValue(h.ctx.registry, 'svc_events_parse_errors_total')).toBe(1);
    expect(await metricValue(h.ctx.registry, 'svc_detection_matches_by_rule_total', { rule_title: 'PowerShell Launch', level: 'low' })).toBe(2);
  });

  it('journals correlation group events with the batch and fires the correlation once the threshold is met', async () => {
    const h = await openHarness(RULES);
    await h.send([failedLogon('h', 1), failedLogon('h', 2)]);
    expect(h.committed).toHaveLength(0);
    await h.send([failedLogon('h', 3)]);
    expect(h.committed.map((r) => r.rule_title)).toEqual(['Logon Failures Burst']);
    expect(h.store.lastSeq).toBeGreaterThanOrEqual(3);
    expect(await metricValue(h.ctx.registry, 'svc_correlation_matches_total')).toBe(1);
  });

  it("stores a position that covers every unit of the batch, a source recording each unit's share (as the NATS input does)", async () => {
    const h = await openHarness(RULES);
    const recorded = new Set<number>();
    const unit = (seqs: readonly number[]): InputUnit => ({
      lines: seqs.map((s) => whoami('a', s)),
      rejected: [],
      settle: () => undefined,
      position: {
        source: 'nats:test',
        commit: (n) => {
          for (const s of seqs.slice(0, n)) recorded.add(s);
        },
        value: () => [...recorded].sort((a, b) => a - b),
      },
    });
    await h.processor.process([unit([1, 2]), unit([3, 4]), unit([5])], h.ctx.clock.now());
    expect(h.store.inputPosition('nats:test')).toEqual([1, 2, 3, 4, 5]);
  });

  it('stores the idempotency answer in the same commit', async () => {
    const h = await openHarness(RULES);
    await h.send([whoami('a', 1)], 'req-1');
    expect(h.store.lookupIdempotency('req-1', h.ctx.clock.now())).toEqual({ status: 'committed', answer: { accepted: 1, parse_errors: 0 } });
  });

  it('recovers the live correlation state from snapshot + journal after any batch sequence', async () => {
    const event = fc.record({ host: fc.constantFrom('h1', 'h2', 'h3'), gap: fc.integer({ min: 0, max: 90 }), kind: fc.constantFrom('fail', 'ok', 'recon', 'disc', 'xfer') });
    const batches = fc.array(fc.array(event, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(batches, fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), async (bs, snapshotAfter) => {
        const backend = new MemoryBackend();
        const live = await openHarness(RULES, backend);
        let s = 0;
        for (const [i, b] of bs.entries()) {
          const lines = b.map((e) => {
            s += e.gap;
            const at = new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString();
            const base = { Computer: e.host, '@timestamp': at };
            const body =
              e.kind === 'fail' ? { EventID: 4625 } : e.kind === 'ok' ? { EventID: 4624, TargetUserName: `u${s % 4}` } : e.kind === 'recon' ? { EventID: 1, CommandLine: 'whoami' } : e.kind === 'disc' ? { EventID: 1, CommandLine: 'net view' } : { EventID: 3, Bytes: s % 3000 };
            return JSON.stringify({ ...base, ...body });
          });
          await live.send(lines);
          if (snapshotAfter[i] === true) await live.snapshot();
        }
        const again = await openHarness(RULES, backend);
        expect(again.active().runtime.groupSnapshots()).toEqual(live.active().runtime.groupSnapshots());
        expect(again.journal.tickedAt).toBe(live.journal.tickedAt);
      }),
      { numRuns: 60 },
    );
  });

  it('drops the state of a correlation whose definition changed across a restart and keeps the others', async () => {
    const backend = new MemoryBackend();
    const live = await openHarness(RULES, backend);
    await live.send([failedLogon('h', 1), JSON.stringify({ EventID: 4624, TargetUserName: 'u1', Computer: 'h', '@timestamp': '2024-01-01T00:00:02Z' })]);
    const changed = ruleSetFrom(CRASH_RULES, (f, t) => (f === 'corr-event-count.yml' ? t.replace('gte: 3', 'gte: 4') : t));
    const again = await openHarness(changed, backend);
    const titles = again.active().runtime.groupSnapshots().map((g) => g.correlation_title);
    expect(titles).toEqual(['Many Users On One Host']);
  });
});
