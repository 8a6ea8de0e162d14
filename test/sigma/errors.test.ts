import { describe, expect, it } from 'vitest';
import { SigmaError } from '../../src/sigma/errors.js';

describe('SigmaError', () => {
  it('prints file, line, rule and path before the message', () => {
    const e = new SigmaError('modifier', 'UnknownModifier', "unknown modifier 'foo'", {
      file: 'rules/a.yml',
      line: 12,
      col: 5,
      ruleId: 'r1',
      path: ['detection', 'sel', 'Image|foo'],
    });
    expect(String(e)).toBe("rules/a.yml:12:5 [r1] detection.sel.Image|foo: unknown modifier 'foo'");
  });
});
