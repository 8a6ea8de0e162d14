import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { decodeEvent, readJsonObjects, type JsonEvent } from '../../../protocol/decode/index.js';

const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus/sigmahq');
const REGRESSION = join(CORPUS, 'regression_data');
const RULE_DIRS = ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder'];

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f));
}

/** Rule id → rule file, read from the first `id:` line so only the rules under test are YAML-parsed. */
function ruleFilesById(): Map<string, string> {
  const byId = new Map<string, string>();
  for (const top of RULE_DIRS) {
    for (const file of filesUnder(join(CORPUS, top), '.yml')) {
      const m = /^id: *['"]?([0-9a-f-]{36})/m.exec(readFileSync(file, 'utf8'));
      if (m?.[1] !== undefined) byId.set(m[1], file);
    }
  }
  return byId;
}

/** Field names of a rule's positive selections (`filter*` selections describe what must be absent). */
function selectionFields(ruleFile: string): string[] {
  const fields = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
    } else if (typeof node === 'object' && node !== null) {
      for (const key of Object.keys(node)) {
        const field = key.split('|')[0] ?? '';
        if (field !== '' && !key.includes('|exists')) fields.add(field);
      }
    }
  };
  for (const doc of parseAllDocuments(readFileSync(ruleFile, 'utf8'))) {
    const detection: unknown = doc.toJS()?.detection;
    if (typeof detection !== 'object' || detection === null) continue;
    for (const [name, body] of Object.entries(detection)) {
      if (name !== 'condition' && !name.startsWith('filter') && !name.startsWith('_')) visit(body);
    }
  }
  return [...fields];
}

interface Sample {
  readonly file: string;
  readonly ruleIds: readonly string[];
}

function samples(): Sample[] {
  return filesUnder(REGRESSION, '.json').map((file) => {
    const info: unknown = parse(readFileSync(join(dirname(file), 'info.yml'), 'utf8'));
    const meta = (info as { rule_metadata?: { id?: string }[] }).rule_metadata ?? [];
    return { file, ruleIds: meta.flatMap((m) => (m.id === undefined ? [] : [m.id])) };
  });
}

describe('SigmaHQ regression samples', () => {
  const all = samples();
  const rules = ruleFilesById();

  it('read as JSON objects without errors, including files of concatenated objects', () => {
    expect(all.length).toBeGreaterThan(150);
    let concatenated = 0;
    for (const { file } of all) {
      const items = [...readJsonObjects(readFileSync(file, 'utf8'))];
      expect(items.filter((i) => !i.ok), file).toEqual([]);
      expect(items.length, file).toBeGreaterThan(0);
      if (items.length > 1) concatenated++;
    }
    expect(concatenated).toBeGreaterThan(0);
  });

  it('flatten to events carrying EventID, Channel, Provider_Name and every field their rules select on', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { file, ruleIds } of all) {
      const events: JsonEvent[] = [];
      for (const item of readJsonObjects(readFileSync(file, 'utf8'))) {
        if (!item.ok) continue;
        const decoded = decodeEvent(item.event, 'auto');
        expect(decoded.ok, file).toBe(true);
        if (decoded.ok) events.push(decoded.event);
      }
      for (const event of events) {
        expect(typeof event['EventID'], file).toBe('number');
        expect(typeof event['Channel'], file).toBe('string');
        expect(typeof event['Provider_Name'], file).toBe('string');
        expect(typeof event['TimeCreated'], file).toBe('string');
        expect(event['Event'], file).toBeUndefined();
      }
      for (const id of ruleIds) {
        const ruleFile = rules.get(id);
        if (ruleFile === undefined) continue;
        checked++;
        for (const field of selectionFields(ruleFile)) {
          if (!events.some((e) => field in e)) missing.push(`${file}: ${field}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(missing).toEqual([]);
  });
});
