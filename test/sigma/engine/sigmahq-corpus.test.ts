// The SigmaHQ corpus end to end (STYLE rule 16): every rule loads and compiles (except those that need
// pipeline placeholders), every regression sample fires the rule it was recorded for, and the candidate
// index never changes a result on real events.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { decodeEvent, readJsonObjects } from '../../../protocol/decode/index.js';
import type { DetectionRule } from '../../../sigma/ast.js';
import { compileRules, type CompileResult } from '../../../sigma/engine/index.js';
import { parseRuleText } from '../../../sigma/rule/index.js';

const ROOT = fileURLToPath(new URL('../../../../shared/corpus/sigmahq/', import.meta.url));

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name), suffix) : d.name.endsWith(suffix) ? [join(dir, d.name)] : [],
  );
}

interface Sample {
  readonly ruleId: string;
  readonly dir: string;
  readonly events: Record<string, unknown>[];
}

function samples(): Sample[] {
  return files(join(ROOT, 'regression_data'), 'info.yml').flatMap((info) => {
    const meta = parse(readFileSync(info, 'utf8')) as { rule_metadata: { id: string }[] };
    const dir = info.slice(0, -'info.yml'.length);
    const events: Record<string, unknown>[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      for (const item of readJsonObjects(readFileSync(join(dir, f), 'utf8'))) {
        if (!item.ok) continue;
        const decoded = decodeEvent(item.event, 'auto');
        if (decoded.ok) events.push(decoded.event as Record<string, unknown>);
      }
    }
    // Raw (non-JSON) samples need a decoder chosen per product; they are not part of this check.
    return events.length === 0 ? [] : [{ ruleId: meta.rule_metadata[0]?.id ?? '', dir: relative(ROOT, dir), events }];
  });
}

describe('SigmaHQ corpus', () => {
  let compiled: CompileResult;
  let ruleCount = 0;

  beforeAll(() => {
    const rules: DetectionRule[] = [];
    for (const f of ['rules', 'rules-emerging-threats', 'rules-threat-hunting'].flatMap((d) => files(join(ROOT, d), '.yml'))) {
      const r = parseRuleText(readFileSync(f, 'utf8'), relative(ROOT, f));
      for (const d of r.documents) if (d.kind === 'detection') rules.push(d);
    }
    ruleCount = rules.length;
    compiled = compileRules(rules);
  }, 180_000);

  test('every rule compiles except those waiting for pipeline placeholders', () => {
    expect(ruleCount).toBeGreaterThan(3000);
    expect(new Set(compiled.errors.map((e) => e.code))).toEqual(new Set(['UnresolvedPlaceholder']));
    expect(compiled.engine.rules.length).toBe(ruleCount - compiled.errors.length);
  });

  test('each regression sample fires its rule, with and without the index alike', () => {
    const { engine } = compiled;
    const all = samples();
    expect(all.length).toBeGreaterThan(150);
    const missed: string[] = [];
    for (const s of all) {
      let fired = false;
      for (const e of s.events) {
        const indexed = engine.evaluate(e);
        expect(indexed).toEqual(engine.evaluateWithoutIndex(e));
        if (indexed.some((m) => m.rule.id === s.ruleId)) fired = true;
      }
      if (!fired) missed.push(`${s.ruleId} ${s.dir}`);
    }
    expect(missed).toEqual([]);
    // Again in reverse order: the probe caches now remember the values, and must change nothing.
    for (const s of [...all].reverse()) for (const e of [...s.events].reverse()) expect(engine.evaluate(structuredClone(e))).toEqual(engine.evaluateWithoutIndex(e));
  }, 120_000);
});
