// STYLE rule 15: evaluating an event that matches nothing allocates nothing. Measured as heap growth per
// call with the young generation emptied first (heap-allocation.ts), with event text that is already
// lowercase (lowercasing uppercase event text is the one allocation the design accepts).
import { expect, test } from 'vitest';
import { bytesPerCall } from './heap-allocation.js';
import { compileDetectionYaml } from './yaml-rules.js';

/** Keeps what the control allocates reachable until the next call, as an engine's scratch state would be. */
let kept: unknown;

test('the measurement catches a function that allocates ~100 bytes per call', () => {
  let i = 0;
  const allocating = (): void => {
    kept = { a: i++, b: i, c: i, d: i, e: i, f: i, g: i, h: i, j: i, k: i };
  };
  expect(bytesPerCall(allocating)).toBeGreaterThan(64);
  expect(kept).toBeDefined();
});

test('a non-matching event evaluates without growing the heap', () => {
  const { engine } = compileDetectionYaml(String.raw`
sel_img: {Image|endswith: ['\evil.exe', '\bad.exe'], CommandLine|contains|all: [' -enc ', 'iex']}
sel_num: {EventID: [1, 4688], Port|gt: 1000}
sel_re: {CommandLine|re: 'a+b'}
kw: [mimikatz, 'sekurlsa::']
filter: {User|neq: system, Ip|cidr: 10.0.0.0/8, 'Time|hour': 3}
fan: {proc.args|windash|contains: ' -x '}
condition: (sel_img or sel_num) and not filter or sel_re or kw or fan`);
  const event = {
    Image: 'c:\\windows\\system32\\notepad.exe',
    CommandLine: 'notepad.exe c:\\temp\\x.txt',
    EventID: 4688,
    Port: 80,
    User: 'bob',
    Ip: '192.168.1.1',
    Time: '2024-07-10t12:00:00z',
    proc: [{ args: 'one' }, { args: 'two' }],
    nested: { deep: ['a', 1, true, null] },
  };
  expect(engine.evaluate(event)).toHaveLength(0);
  expect(bytesPerCall(() => engine.evaluate(event))).toBeLessThan(8);
});
