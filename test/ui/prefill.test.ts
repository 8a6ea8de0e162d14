import { describe, expect, it } from 'vitest';
import { hostOfDetection, hostOfIncident, ruleKey, silenceRoute } from '../../ui/prefill.js';

describe('silence prefill', () => {
  it('takes the host from a matched field first, then from the included event', () => {
    expect(hostOfDetection({ matched_fields: [{ field: 'CommandLine', value: 'x' }, { field: 'Computer', value: 'h1' }] })).toEqual({ selector: 'match.Computer', value: 'h1' });
    expect(hostOfDetection({ matched_fields: [], event: { Computer: 'h2' } })).toEqual({ selector: 'event.Computer', value: 'h2' });
    expect(hostOfDetection({ matched_fields: [], event: { host: { name: 'h3' } } })).toEqual({ selector: 'event.host.name', value: 'h3' });
    expect(hostOfDetection({ matched_fields: [{ field: 'Image', value: 'a' }] })).toBeUndefined();
  });

  it('takes an incident host from a grouping selector naming a host field', () => {
    expect(hostOfIncident({ 'event.Computer': 'h1' })).toEqual({ selector: 'event.Computer', value: 'h1' });
    expect(hostOfIncident({ 'match.host.name': 'h2' })).toEqual({ selector: 'match.host.name', value: 'h2' });
    expect(hostOfIncident({ 'event.User': 'alice' })).toBeUndefined();
    expect(hostOfIncident(undefined)).toBeUndefined();
  });

  it('names the rule as the rule selector resolves it and encodes everything into the route', () => {
    expect(ruleKey({ rule_id: 'r-1', rule_title: 'T' })).toBe('r-1');
    expect(ruleKey({ rule_id: null, rule_title: 'T' })).toBe('T');
    const route = silenceRoute('r&1', { selector: 'event.Computer', value: 'h 1#x' }, 'why?');
    expect(route.startsWith('#/silences?')).toBe(true);
    const q = new URLSearchParams(route.slice('#/silences?'.length));
    expect(Object.fromEntries(q)).toEqual({ rule: 'r&1', for: '1h', comment: 'why?', selector: 'event.Computer', value: 'h 1#x' });
  });
});
