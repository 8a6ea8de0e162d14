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
  it('restores into the state it was written from', () => {
    const kind = restored().kind();
    expect([...kind.states()].map(([k, p]) => [k, kind.codec.encode(p)])).toEqual(golden.pieces);
  });

  it('emits the same repeat and resolved records after the restore', () => {
    const stage = restored();
    expect(golden.ticks.at.flatMap((t) => stage.tick(t).map((l) => l.text))).toEqual(golden.ticks.lines);
  });
});
