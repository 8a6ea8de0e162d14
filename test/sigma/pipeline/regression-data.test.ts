// End to end on SigmaHQ's regression data (raw evtx_dump JSON of real events, each naming the rule that
// must fire): the built-in `sysmon` + `evtx-nested` pipelines must make the generic rule match the
// unflattened Sysmon event. Only Sysmon-channel events are used: the few others keep their fields under
// `Event.UserData.<element>` or with spaces in names (`Threat Name`), which needs the evtx decoder's
// flattening rather than field renaming.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import type { DetectionRule } from '../../../sigma/ast.js';
import { compileRules } from '../../../sigma/engine/index.js';
import { applyPipelines, resolvePipeline } from '../../../sigma/pipeline/index.js';
import type { Pipeline } from '../../../sigma/pipeline/index.js';
import { parseRuleText } from '../../../sigma/rule/index.js';

const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus/sigmahq');
const REGRESSION = join(CORPUS, 'regression_data');

interface Case {
  readonly name: string;
  readonly ruleFile: string;
  readonly ruleId: string;
  readonly events: readonly Record<string, unknown>[];
}

/** JSON files hold one event or several concatenated objects. */
function readEvents(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8').trim();
  const out: Record<string, unknown>[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
  }
  return out;
}

function isSysmon(e: Record<string, unknown>): boolean {
  const system = (e['Event'] as { System?: { Channel?: unknown } } | undefined)?.System;
  return system?.Channel === 'Microsoft-Windows-Sysmon/Operational';
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const info of readdirSync(REGRESSION, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('info.yml'))) {
    const dir = join(REGRESSION, dirname(info));
    const ruleFile = join(CORPUS, `${relative(REGRESSION, dir)}.yml`);
    const meta = parse(readFileSync(join(dir, 'info.yml'), 'utf8')) as { rule_metadata?: { id?: string }[] };
    const ruleId = meta.rule_metadata?.[0]?.id;
    if (ruleId === undefined || !existsSync(ruleFile)) continue;
    const events = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .flatMap((f) => readEvents(join(dir, f)));
    if (!events.every(isSysmon)) continue;
    out.push({ name: relative(REGRESSION, dir), ruleFile, ruleId, events });
  }
  return out;
}

function builtin(name: string): Pipeline {
  const { pipeline } = resolvePipeline(name);
  if (!pipeline) throw new Error(name);
  return pipeline;
}

test('sysmon + evtx-nested make SigmaHQ rules fire on their raw regression events', () => {
  const pipelines = [builtin('sysmon'), builtin('evtx-nested')];
  const all = cases();
  expect(all.length).toBeGreaterThan(150);
  const failures: string[] = [];
  for (const c of all) {
    const loaded = parseRuleText(readFileSync(c.ruleFile, 'utf8'), c.ruleFile);
    const rule = loaded.documents.find((d): d is DetectionRule => d.kind === 'detection' && d.id === c.ruleId);
    if (!rule) {
      failures.push(`${c.name}: rule not loaded (${loaded.errors.map(String).join('; ')})`);
      continue;
    }
    const mapped = applyPipelines(rule, pipelines);
    if (mapped.errors.length > 0) {
      failures.push(`${c.name}: ${mapped.errors.map(String).join('; ')}`);
      continue;
    }
    const { engine, errors } = compileRules([mapped.doc]);
    if (errors.length > 0) {
      failures.push(`${c.name}: ${errors.map(String).join('; ')}`);
      continue;
    }
    if (!c.events.some((e) => engine.evaluate(e).length > 0)) failures.push(`${c.name}: no match`);
  }
  expect(failures).toEqual([]);
});
