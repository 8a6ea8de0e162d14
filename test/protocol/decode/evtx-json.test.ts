import { describe, expect, it } from 'vitest';
import { decodeEvent, detectFormat, flattenEvtx } from '../../../protocol/decode/index.js';

const system = {
  Provider: { '#attributes': { Name: 'Microsoft-Windows-Security-Auditing', Guid: '54849625-5478' } },
  EventID: 4688,
  Level: 0,
  Keywords: '0x8020000000000000',
  TimeCreated: { '#attributes': { SystemTime: '2026-01-02T03:04:05.123456Z' } },
  Execution: { '#attributes': { ProcessID: 4, ThreadID: 8 } },
  Channel: 'Security',
  Computer: 'host.example',
  Security: null,
};

describe('flattenEvtx', () => {
  it('lifts the System header into EventID, Channel, Computer, Provider_Name and TimeCreated', () => {
    const flat = flattenEvtx({ Event: { '#attributes': { xmlns: 'x' }, System: system, EventData: { NewProcessName: 'C:\\a.exe' } } });
    expect(flat).toMatchObject({
      EventID: 4688,
      Channel: 'Security',
      Computer: 'host.example',
      Provider_Name: 'Microsoft-Windows-Security-Auditing',
      TimeCreated: '2026-01-02T03:04:05.123456Z',
      NewProcessName: 'C:\\a.exe',
    });
  });

  it('keeps other System values, attributes as Element_Attribute', () => {
    const flat = flattenEvtx({ Event: { System: system } });
    expect(flat).toMatchObject({
      Level: 0,
      Keywords: '0x8020000000000000',
      Provider_Guid: '54849625-5478',
      Execution_ProcessID: 4,
      Execution_ThreadID: 8,
      TimeCreated_SystemTime: '2026-01-02T03:04:05.123456Z',
      Security: null,
    });
    expect(flat).not.toHaveProperty('xmlns');
  });

  it('reads an EventID wrapped with attributes and turns numeric text into a number', () => {
    const flat = flattenEvtx({
      Event: { System: { ...system, EventID: { '#attributes': { Qualifiers: 16384 }, '#text': '7045' } } },
    });
    expect(flat['EventID']).toBe(7045);
    expect(flat['EventID_Qualifiers']).toBe(16384);
  });

  it('keeps a non-numeric EventID as text', () => {
    expect(flattenEvtx({ Event: { System: { ...system, EventID: 'abc' } } })['EventID']).toBe('abc');
  });

  it('names Data items by their Name attribute in both JSON renderings', () => {
    const flat = flattenEvtx({
      Event: {
        System: system,
        EventData: {
          Data: [
            { '@Name': 'SubjectUserName', '#text': 'alice' },
            { '#attributes': { Name: 'CommandLine' }, '#text': 'cmd /c whoami' },
            { '@Name': 'Empty' },
          ],
        },
      },
    });
    expect(flat).toMatchObject({ SubjectUserName: 'alice', CommandLine: 'cmd /c whoami', Empty: null });
    expect(flat).not.toHaveProperty('Data');
  });

  it('names a single Data element by its Name attribute', () => {
    const flat = flattenEvtx({ Event: { System: system, EventData: { Data: { '@Name': 'ScriptBlockText', '#text': 'iex' } } } });
    expect(flat['ScriptBlockText']).toBe('iex');
  });

  it('keeps unnamed Data values under Data', () => {
    expect(flattenEvtx({ Event: { System: system, EventData: { Data: ['a', 'b'] } } })['Data']).toEqual(['a', 'b']);
    expect(flattenEvtx({ Event: { System: system, EventData: { Data: { '#text': 'only' } } } })['Data']).toBe('only');
  });

  it('flattens nested UserData leaves under their own names and drops namespace attributes', () => {
    const flat = flattenEvtx({
      Event: {
        System: system,
        UserData: {
          LogFileCleared: {
            '#attributes': { xmlns: 'http://manifests.microsoft.com/win/2004/08/windows/eventlog' },
            SubjectUserName: 'bob',
            Details: { Inner: { Deep: 42 } },
          },
        },
      },
    });
    expect(flat).toMatchObject({ SubjectUserName: 'bob', Deep: 42 });
    expect(flat).not.toHaveProperty('xmlns');
    expect(flat).not.toHaveProperty('LogFileCleared');
  });

  it('ignores attributes on the EventData element itself', () => {
    const flat = flattenEvtx({
      Event: { System: system, EventData: { '#attributes': { Name: 'TaskDisabled' }, TaskName: '\\T' } },
    });
    expect(flat['TaskName']).toBe('\\T');
    expect(flat).not.toHaveProperty('Name');
  });

  it('also stores data names containing spaces without the spaces', () => {
    const flat = flattenEvtx({ Event: { System: system, EventData: { 'Source Name': 'Real-Time Protection' } } });
    expect(flat['Source Name']).toBe('Real-Time Protection');
    expect(flat['SourceName']).toBe('Real-Time Protection');
  });

  it('never lets event data overwrite the core System fields', () => {
    const flat = flattenEvtx({ Event: { System: system, UserData: { LogFileCleared: { Channel: 'Application', Level: 9 } } } });
    expect(flat['Channel']).toBe('Security');
    expect(flat['Level']).toBe(9);
  });

  it('does not let input names reach the prototype', () => {
    const event = JSON.parse(
      '{"Event":{"System":{"EventID":1},"EventData":{"__proto__":{"polluted":true},"to String":"x"}}}',
    ) as Record<string, unknown>;
    const flat = flattenEvtx(event);
    expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
    expect(flat['polluted']).toBe(true);
    expect(Object.hasOwn(flat, 'toString')).toBe(true);
  });

  it('tolerates missing or null sections', () => {
    expect(flattenEvtx({ Event: { System: system, EventData: null } })['EventID']).toBe(4688);
    expect(flattenEvtx({ Event: 'x' })).toEqual({});
  });
});

describe('detectFormat', () => {
  it('recognises evtx-shaped objects only', () => {
    expect(detectFormat({ Event: { System: {} } })).toBe('evtx-json');
    expect(detectFormat({ Event: { EventData: {} } })).toBe('json');
    expect(detectFormat({ Event: 'login' })).toBe('json');
    expect(detectFormat({ Image: 'a.exe' })).toBe('json');
  });
});

describe('decodeEvent', () => {
  const evtx = { Event: { System: system, EventData: { Image: 'a.exe' } } };

  it('keeps plain JSON objects as they are in json and auto modes', () => {
    expect(decodeEvent({ a: 1 }, 'json')).toEqual({ ok: true, event: { a: 1 } });
    expect(decodeEvent({ a: 1 }, 'auto')).toEqual({ ok: true, event: { a: 1 } });
    expect(decodeEvent(evtx, 'json')).toEqual({ ok: true, event: evtx });
  });

  it('flattens evtx events in auto and evtx-json modes', () => {
    for (const mode of ['auto', 'evtx-json'] as const) {
      const r = decodeEvent(evtx, mode);
      expect(r.ok && r.event['Image']).toBe('a.exe');
    }
  });

  it('rejects non-evtx objects in evtx-json mode and non-objects in every mode', () => {
    expect(decodeEvent({ a: 1 }, 'evtx-json').ok).toBe(false);
    for (const mode of ['json', 'auto', 'evtx-json'] as const) {
      expect(decodeEvent([1], mode)).toEqual({ ok: false, error: 'expected a JSON object, got an array' });
      expect(decodeEvent(null, mode).ok).toBe(false);
    }
  });
});
