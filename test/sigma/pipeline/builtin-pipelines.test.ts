import { describe, expect, test } from 'vitest';
import type { DetectionRule } from '../../../sigma/ast.js';
import { applyPipelines, builtinPipelines, isBuiltinPipeline, listBuiltinPipelines, resolvePipeline } from '../../../sigma/pipeline/index.js';
import type { Pipeline } from '../../../sigma/pipeline/index.js';
import { fieldsOf, loadRule, matches } from './helpers.js';

function builtin(name: string): Pipeline {
  const { pipeline, errors } = resolvePipeline(name);
  expect(errors.map(String)).toEqual([]);
  if (!pipeline) throw new Error(name);
  return pipeline;
}

const rule = (logsource: string, selection = "Image|endswith: '\\cmd.exe'"): DetectionRule =>
  loadRule(`title: t\nlogsource: {${logsource}}\ndetection:\n  sel:\n    ${selection}\n  condition: sel\n`);

describe('built-in pipelines', () => {
  test('are listed with a description and all parse without errors', () => {
    expect(listBuiltinPipelines().map((p) => p.name)).toEqual(['sysmon', 'windows-audit', 'ecs-windows', 'evtx-nested']);
    for (const { name, description } of listBuiltinPipelines()) {
      expect(description).not.toBe('');
      expect(builtin(name).name).toBe(name);
      expect(isBuiltinPipeline(name)).toBe(true);
    }
    expect(Object.keys(builtinPipelines)).toHaveLength(4);
  });

  test('resolvePipeline parses a file text when the name is not built in, and says what is wrong otherwise', () => {
    expect(resolvePipeline('mine.yml', 'name: mine\n').pipeline?.name).toBe('mine');
    expect(resolvePipeline('mine.yml').errors[0]?.message).toContain("'mine.yml' is not a built-in pipeline");
  });

  test('sysmon: process_creation gets EventID 1 and the Sysmon channel, logsource becomes service sysmon', () => {
    const r = applyPipelines(rule('product: windows, category: process_creation'), [builtin('sysmon')]);
    expect(r.errors).toEqual([]);
    expect(r.doc.logsource).toEqual({ product: 'windows', service: 'sysmon' });
    const event = { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'C:\\Windows\\System32\\cmd.exe' };
    expect(matches(r, event)).toBe(true);
    expect(matches(r, { ...event, EventID: 4688 })).toBe(false);
    expect(matches(r, { ...event, Channel: 'Security' })).toBe(false);
  });

  test.each([
    ['network_connection', [3]],
    ['pipe_created', [17, 18]],
    ['wmi_event', [19, 20, 21]],
    ['file_delete', [23, 26]],
    ['sysmon_status', [4, 16]],
    ['sysmon_error', [255]],
    ['registry_set', [13]],
  ])('sysmon: %s maps to event ids %j', (category, ids) => {
    const r = applyPipelines(rule(`product: windows, category: ${category}`), [builtin('sysmon')]);
    for (const id of ids) expect(matches(r, { EventID: id, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'x\\cmd.exe' })).toBe(true);
    expect(matches(r, { EventID: 99, Channel: 'Microsoft-Windows-Sysmon/Operational', Image: 'x\\cmd.exe' })).toBe(false);
  });

  test('sysmon leaves other logsources alone', () => {
    const r = applyPipelines(rule('product: linux, category: process_creation'), [builtin('sysmon')]);
    expect(r.doc.condition).toEqual(['sel']);
  });

  test('windows-audit: process_creation becomes Security 4688 with NewProcessName', () => {
    const r = applyPipelines(rule('product: windows, category: process_creation', "ParentImage|endswith: '\\explorer.exe'"), [builtin('windows-audit')]);
    expect(r.errors).toEqual([]);
    expect(r.doc.logsource).toEqual({ product: 'windows', service: 'security' });
    expect(fieldsOf(r.doc)).toContain('ParentProcessName');
    expect(matches(r, { EventID: 4688, Channel: 'Security', ParentProcessName: 'C:\\Windows\\explorer.exe' })).toBe(true);
    expect(matches(r, { EventID: 1, Channel: 'Security', ParentProcessName: 'C:\\Windows\\explorer.exe' })).toBe(false);
  });

  test('windows-audit: services get their channel, once', () => {
    const r = applyPipelines(rule('product: windows, service: powershell', 'EventID: 4104'), [builtin('windows-audit')]);
    expect(matches(r, { EventID: 4104, Channel: 'PowerShellCore/Operational' })).toBe(true);
    expect(matches(r, { EventID: 4104, Channel: 'Security' })).toBe(false);
    const ps = applyPipelines(rule('product: windows, category: ps_script', 'ScriptBlockText|contains: iex'), [builtin('windows-audit')]);
    expect(ps.doc.condition).toEqual(['_cond_1 and (sel)']);
    expect(matches(ps, { EventID: 4104, Channel: 'Microsoft-Windows-PowerShell/Operational', ScriptBlockText: 'x IEX y' })).toBe(true);
    const sec = applyPipelines(rule('product: windows, service: bits-client', 'EventID: 3'), [builtin('windows-audit')]);
    expect(matches(sec, { EventID: 3, Channel: 'Microsoft-Windows-Bits-Client/Operational' })).toBe(true);
  });

  test('ecs-windows renames known fields and puts the others under winlog.event_data', () => {
    const r = applyPipelines(rule('product: windows, category: process_creation', 'CommandLine|contains: whoami'), [builtin('sysmon'), builtin('ecs-windows')]);
    expect(r.errors).toEqual([]);
    const event = { winlog: { event_id: 1, channel: 'Microsoft-Windows-Sysmon/Operational' }, process: { command_line: 'whoami /all' } };
    expect(matches(r, event)).toBe(true);
    const other = applyPipelines(rule('product: windows, category: process_creation', 'IntegrityLevel: High'), [builtin('ecs-windows')]);
    expect(fieldsOf(other.doc)).toEqual(['winlog.event_data.IntegrityLevel']);
  });

  test('evtx-nested addresses raw evtx_dump JSON, combined with sysmon in priority order', () => {
    // Given in the "wrong" order: priorities (sysmon 10, evtx-nested 20) decide.
    const r = applyPipelines(rule('product: windows, category: process_creation'), [builtin('evtx-nested'), builtin('sysmon')]);
    expect(r.errors).toEqual([]);
    const event = {
      Event: {
        System: { EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational' },
        EventData: { Image: 'C:\\Windows\\System32\\cmd.exe' },
      },
    };
    expect(matches(r, event)).toBe(true);
    expect(fieldsOf(r.doc).sort()).toEqual(['Event.EventData.Image', 'Event.System.Channel', 'Event.System.EventID']);
  });
});
