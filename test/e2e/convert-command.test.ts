// `sigmad convert` as a user runs it: queries on stdout or in --output, skipped rules with their reason
// on stderr, exit 0 when anything converted, 2 when nothing did or an argument is unusable.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, tempDir } from './harness.js';

async function sigmad(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIN, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const RULES = `title: Whoami
id: 0d8e4d9a-0000-4000-8000-000000000001
logsource: {product: windows, category: process_creation}
detection:
  sel:
    Image|endswith: '\\whoami.exe'
  condition: sel
---
title: Internal peer
id: 0d8e4d9a-0000-4000-8000-000000000002
logsource: {product: windows, category: network_connection}
detection:
  sel:
    DestinationIp|cidr: 10.0.0.0/8
  condition: sel
`;

let rules: string;
beforeAll(async () => {
  await ensureBuilt();
  rules = join(tempDir('convert'), 'rules.yml');
  writeFileSync(rules, RULES);
}, 180_000);

describe('sigmad convert', () => {
  it('prints one commented query per rule for PostgreSQL', async () => {
    const r = await sigmad(['convert', '--rules', rules, '--target', 'postgres', '-O', 'json_field=data', '-O', 'table=events']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('-- 0d8e4d9a-0000-4000-8000-000000000001: Whoami\nSELECT * FROM "events" WHERE "data"->>\'Image\' ILIKE');
    expect(r.stdout).toContain("::inet <<= '10.0.0.0/8'::cidr");
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toEqual({ target: 'postgres', rules_converted: 2, rules_skipped: 0, rules_rejected: 0 });
  });

  it('reports what SQLite cannot say and writes JSON lines to --output', async () => {
    const out = join(tempDir('convert-out'), 'queries.ndjson');
    const r = await sigmad(['convert', '--rules', rules, '--target', 'sqlite', '--format', 'json', '-O', 'json_field=data', '--output', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/rule skipped: .*rules\.yml \[0d8e4d9a-0000-4000-8000-000000000002\] cidr has no SQLite form/);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { rule_id: string; title: string; query: string });
    expect(lines.map((l) => l.title)).toEqual(['Whoami']);
  });

  it('exits 2 when no rule converts, naming the field and rule that fail the identifier pattern', async () => {
    const dotted = join(tempDir('convert-dotted'), 'dotted.yml');
    writeFileSync(dotted, RULES.split('---')[0]?.replace('Image|endswith', 'process.executable|endswith') ?? '');
    // Without json_field every field is a column, and `process.executable` is no identifier.
    const r = await sigmad(['convert', '--rules', dotted, '--target', 'postgres']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("InvalidIdentifier: field 'process.executable' does not match ^[A-Za-z_][A-Za-z0-9_$]*$ (rule 0d8e4d9a-0000-4000-8000-000000000001)");
  });

  it('exits 2 on a bad target or identifier option', async () => {
    expect((await sigmad(['convert', '--rules', rules, '--target', 'mysql'])).stderr).toContain('--target must be one of postgres, sqlite');
    const bad = await sigmad(['convert', '--rules', rules, '--target', 'postgres', '-O', 'table=bad-name']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("InvalidIdentifier: table 'bad-name'");
  });
});
