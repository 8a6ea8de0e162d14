// A snapshot of the alert pipeline written by the code of 1b6ebd9 (codec version 2: dedup fields as
// JSON text, the tick piece with its sequence; every piece kind, an own `__proto__` key in the
// samples) still restores: into the same state, and the ticks after it emit the same records.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quietObserver } from '../../actors/alert/index.js';
import type { AlertStatePiece } from '../../actors/alert/index.js';
import { AlertStage } from '../../streams/index.js';

interface Golden {
  readonly version: number;
  readonly pieces: readonly (readonly [string, unknown])[];
  readonly ticks: { readonly at: readonly number[]; readonly lines: readonly string[] };
}

const golden = JSON.parse(readFileSync(new URL('golden/alert-snapshot-v2.json', import.meta.url), 'utf8')) as Golden;

function restored(): AlertStage {
  const stage = new AlertStage({ at: 0, drafts: [], tickedAt: -1 }, quietObserver);
  const kind = stage.kind();
  kind.restore(golden.pieces.map(([, p]) => kind.codec.decode(p, golden.version) as AlertStatePiece));
  return stage;
}

describe('an alert snapshot of codec version 2', () => {
  it('restores into the state it was written from (the tick piece now without its sequence)', () => {
    const kind = restored().kind();
    const current = golden.pieces.map(([k, p]) => [k, (p as { t: string }).t === 'tick' ? { t: 'tick', now: (p as { now: number }).now } : p]);
    expect([...kind.states()].map(([k, p]) => [k, kind.codec.encode(p)])).toEqual(current);
  });

  it('emits the same repeat and resolved records after the restore, named by the tick time', () => {
    const stage = restored();
    const withoutId = (text: string): string => text.replace(/^\{"result_id":"[^"]*",/, '{');
    const lines = golden.ticks.at.flatMap((t) => stage.tick(t).map((l) => ({ t, text: l.text, id: l.result_id })));
    expect(lines.map((l) => withoutId(l.text))).toEqual(golden.ticks.lines.map(withoutId));
    for (const l of lines) {
      const trigger = (JSON.parse(l.text) as { trigger?: string; enrichments?: { dedup_state?: string } }).trigger ?? 'dedup';
      expect(l.id).toMatch(new RegExp(`^t[0-9a-f]{16}-${(l.t * 1000).toString(16)}-(${trigger}|repeat|resolved)-0$`));
      expect(l.text.startsWith(`{"result_id":"${l.id}",`)).toBe(true);
    }
  });
});
