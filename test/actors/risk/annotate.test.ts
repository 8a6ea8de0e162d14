// §8.2 score resolution and object extraction, §8.3 tactics, and the config errors of §8.1.
import { describe, expect, it } from 'vitest';
import { AlertConfigError } from '../../../actors/alert/index.js';
import { compileRiskConfig, extractObjects, resolveScore, riskIncidentId, tacticsOf } from '../../../actors/risk/index.js';

const config = compileRiskConfig({
  score: { tag_scores: { 'attack.*': 10, 'car.x': 3 }, level_scores: { High: 40 }, default_score: 1 },
  objects: [
    { type: 'host', selector: 'event.Computer' },
    { type: 'host', selector: 'event.Host' },
    { type: 'pid', selector: 'event.Pid' },
    { type: 'admin', selector: 'event.Admin' },
    { type: 'user', selector: 'event.User' },
  ],
});

describe('risk annotation', () => {
  it('resolves the score: attribute, then tag scores, then level, then default', () => {
    expect(resolveScore(config, { custom_attributes: { 'svc.risk_score': '7.6' }, tags: ['attack.x'] })).toBe(8);
    expect(resolveScore(config, { custom_attributes: { 'svc.risk_score': 2.4 } })).toBe(2);
    expect(resolveScore(config, { custom_attributes: { 'svc.risk_score': 'high' }, tags: ['attack.x', 'attack.y', 'car.x'] })).toBe(23);
    // `attack.*` is a prefix with its dot: `attacker` does not match.
    expect(resolveScore(config, { tags: ['attacker'], level: 'high' })).toBe(40);
    expect(resolveScore(config, { level: 'low' })).toBe(1);
    const max = compileRiskConfig({ score: { tag_scores: { 'attack.*': 10, 'car.x': 3 }, tag_reducer: 'max' }, objects: [{ type: 'h', selector: 'rule' }] });
    expect(resolveScore(max, { tags: ['attack.x', 'attack.y', 'car.x'] })).toBe(10);
  });

  it('keeps non-empty strings, numbers and booleans as text, once per (type, value)', () => {
    expect(extractObjects(config, { event: { Computer: 'h1', Host: 'h1', Pid: 42, Admin: false, User: '' } })).toEqual([
      { type: 'host', value: 'h1' },
      { type: 'pid', value: '42' },
      { type: 'admin', value: 'false' },
    ]);
    expect(extractObjects(config, { event: { Computer: { nested: 1 }, User: null } })).toEqual([]);
  });

  it('takes the ATT&CK tactics of the tags, distinct, in first-seen order', () => {
    expect(tacticsOf({ tags: ['attack.Defense_Evasion', 'attack.t1059', 'attack.execution', 'attack.defense-evasion', 'car.execution', 'attack.made_up'] })).toEqual(['defense-evasion', 'execution']);
  });

  it('refuses empty objects, bad selectors and an incident without a threshold, naming the key', () => {
    expect(() => compileRiskConfig({ objects: [] })).toThrow(/objects/);
    expect(() => compileRiskConfig({ objects: [{ type: 'h', selector: 'nope.x' }] })).toThrow(AlertConfigError);
    expect(() => compileRiskConfig({ objects: [{ type: 'h', selector: 'rule' }], incident: { window: '1h' } })).toThrow(/incident/);
    expect(() => compileRiskConfig({ objects: [{ type: 'h', selector: 'rule' }], incident: { window: 'soon', score_threshold: 1 } })).toThrow(/incident\.window/);
  });

  it('derives incident ids in UUID v4 form from the journal position, the same every time', () => {
    const id = riskIncidentId('e1f-0', 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(riskIncidentId('e1f-0', 0)).toBe(id);
    expect(riskIncidentId('e1f-0', 1)).not.toBe(id);
  });
});
