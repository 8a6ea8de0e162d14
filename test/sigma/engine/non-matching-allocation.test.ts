// STYLE rule 15: evaluating an event that matches nothing allocates nothing. Measured as heap growth over
// many evaluations after warm-up, with event text that is already lowercase (lowercasing uppercase event
// text is the one allocation the design accepts).
import { expect, test } from 'vitest';
import { compileDetectionYaml } from './yaml-rules.js';

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
  for (let i = 0; i < 20_000; i++) engine.evaluate(event);
  const before = process.memoryUsage().heapUsed;
  const n = 100_000;
  for (let i = 0; i < n; i++) engine.evaluate(event);
  const grown = process.memoryUsage().heapUsed - before;
  expect(engine.evaluate(event)).toHaveLength(0);
  expect(grown / n).toBeLessThan(8);
});
