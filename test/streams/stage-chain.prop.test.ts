import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { quietObserver, quietRiskObserver } from '../../actors/index.js';
import type { AlertPipelineFile, RiskFile } from '../../protocol/index.js';
import { AlertStage, compileScope, compileTemplate, EnrichStage, RiskStage } from '../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../streams/index.js';
import { testContext } from './support.js';

const AT = 1_767_225_600_000;

interface Input {
  readonly host: string;
  readonly cmd: string;
  readonly level: 'low' | 'high' | 'critical';
  readonly withEvent: boolean;
  readonly own?: Record<string, string>;
}

interface Setup {
  readonly alertStrip: boolean;
  readonly riskStrip: boolean;
  readonly riskEvents: boolean;
  readonly enrich: boolean;
}

function line(i: number, r: Input): CommittedResult {
  const result_id = `e${i}-0`;
  const result = {
    result_id,
    rule_title: 'Whoami',
    rule_id: 'rule-1',
    level: r.level,
    tags: ['attack.discovery'],
    matched_selections: ['selection'],
    matched_fields: [{ field: 'CommandLine', value: r.cmd }],
    ...(r.withEvent ? { event: { Computer: r.host, CommandLine: r.cmd } } : {}),
    ...(r.own !== undefined ? { enrichments: r.own } : {}),
  };
  return { result_id, head: { rule_title: 'Whoami', rule_id: 'rule-1', level: r.level }, text: JSON.stringify(result) };
}

/** Enrich → risk → alert pipeline as the batch processor chains them, each journaling into its own buffer. */
function chain(setup: Setup) {
  const journal: JournalBuffer = { at: AT, drafts: [], tickedAt: -1 };
  const enrich = new EnrichStage(testContext(undefined, ['enrichment']));
  const template = compileTemplate('${detection.rule.title} on ${detection.event.Computer}: ${detection.fields.CommandLine}', 'detection', 'identity', {});
  if (setup.enrich) enrich.load({ enrichers: [{ id: 'summary', kind: 'detection', injectField: 'summary', timeoutMs: 1000, onError: 'skip', scope: compileScope({ levels: ['high', 'critical'] }), sync: true, call: (r) => template.render(r) }], maxConcurrent: 1 });
  const risk = new RiskStage(journal, quietRiskObserver);
  const riskFile: RiskFile = {
    score: { level_scores: { high: 10, critical: 50 } },
    objects: [{ type: 'host', selector: 'event.Computer' }],
    incident: { window: '1h', score_threshold: 60 },
    strip_event: setup.riskStrip,
    emit_risk_events: setup.riskEvents,
  };
  risk.load(riskFile);
  const alerts = new AlertStage(journal, quietObserver);
  const alertFile: AlertPipelineFile = {
    dedup: { fingerprint: ['event.Computer', 'match.CommandLine'] },
    group: { by: ['event.Computer'], group_wait: '30s' },
    strip_event: setup.alertStrip,
  };
  alerts.load(alertFile);
  journal.drafts.length = 0;
  return {
    journal,
    run(lines: readonly CommittedResult[], between: (ls: readonly CommittedResult[]) => readonly CommittedResult[]): readonly CommittedResult[] {
      const enriched = enrich.apply(between(lines));
      if (enriched instanceof Promise) throw new Error('the template enricher answers synchronously');
      return alerts.apply(between(risk.apply(between(enriched))));
    },
  };
}

/** The lines as a stage that parses its input again would see them: text only. */
const textOnly = (ls: readonly CommittedResult[]): CommittedResult[] => ls.map(({ result_id, head, text, bypass }) => (bypass === true ? { result_id, head, text, bypass } : { result_id, head, text }));

const input: fc.Arbitrary<Input> = fc.record(
  {
    host: fc.constantFrom('WS-1', 'WS-2', 'DC-1'),
    cmd: fc.oneof(fc.constantFrom('whoami', 'whoami /all'), fc.string({ unit: 'binary', maxLength: 12 })),
    level: fc.constantFrom('low', 'high', 'critical'),
    withEvent: fc.boolean(),
    own: fc.dictionary(fc.constantFrom('owner', 'ticket', 'summary', 'incident_id', '0'), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
  },
  { requiredKeys: ['host', 'cmd', 'level', 'withEvent'] },
);
const setup: fc.Arbitrary<Setup> = fc.record({ alertStrip: fc.boolean(), riskStrip: fc.boolean(), riskEvents: fc.boolean(), enrich: fc.boolean() });

describe('the enrich, risk and alert stages of one batch', () => {
  it('parse each result at most once, write what re-serialising gives, and the same bytes and journal as stages that each parse the text', () => {
    fc.assert(
      fc.property(setup, fc.array(fc.array(input, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), (s, batches) => {
        const shared = chain(s);
        const reparsing = chain(s);
        let i = 0;
        for (const batch of batches) {
          const lines = batch.map((r) => line(i++, r));
          const parse = vi.spyOn(JSON, 'parse');
          let out: readonly CommittedResult[];
          try {
            out = shared.run(lines, (ls) => ls);
            expect(parse.mock.calls.length).toBeLessThanOrEqual(lines.length);
          } finally {
            parse.mockRestore();
          }
          const expected = reparsing.run(lines.map((l) => ({ ...l })), textOnly);
          expect(out.map((l) => l.text)).toEqual(expected.map((l) => l.text));
          expect(shared.journal.drafts.map((d) => JSON.stringify(d.event))).toEqual(reparsing.journal.drafts.map((d) => JSON.stringify(d.event)));
          for (const l of out) {
            // Spliced or not, a text is what serialising its result gives, as when every stage re-serialised.
            expect(l.text).toBe(JSON.stringify(JSON.parse(l.text)));
            if (l.value !== undefined) expect(JSON.stringify(l.value)).toBe(l.text);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
