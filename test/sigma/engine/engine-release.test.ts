// Releasing an engine (the daemon's main thread once detection workers serve, issue 19 §2): the rules and
// counters stay for everything that describes them, and evaluating is refused instead of answering wrong.
import { describe, expect, it } from 'vitest';
import { compileDetectionYaml } from './yaml-rules.js';

describe('Engine.release', () => {
  it('keeps rules and stats and refuses to evaluate afterwards', () => {
    const { engine } = compileDetectionYaml('sel:\n  Image|endswith: \\x.exe');
    expect(engine.evaluate({ Image: 'c:\\x.exe' })).toHaveLength(1);
    const rules = engine.rules;
    engine.release();
    expect(engine.rules).toBe(rules);
    expect(engine.rules[0]?.title).toBe('t');
    expect(engine.stats.rulesPrunedByLogsource).toBe(0);
    expect(() => engine.evaluate({ Image: 'c:\\x.exe' })).toThrow(TypeError);
    expect(() => engine.evaluateWithoutIndex({ Image: 'c:\\x.exe' })).toThrow(TypeError);
  });
});
