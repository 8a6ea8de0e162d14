// Documents of a compiled-rule cache entry (stored-documents.ts): restored with their eager fields as data and the
// rest read from their stored whole on first use, each restore (a start, then every reload from an entry) giving
// documents that read, spread, serialise and clone as the stored ones, and that V8 keeps as fast objects.
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { restoreDocuments, storeDocuments } from '../../streams/detect/stored-documents.js';
import type { PreparedRules } from '../../sigma/index.js';

type Doc = PreparedRules['detections'][number];

const doc = (i: number, extra: Record<string, unknown> = {}): Doc =>
  ({
    file: `rules/r${i}.yml`,
    doc: 0,
    title: `Rule ${i}`,
    id: `id-${i}`,
    status: 'test',
    description: `what rule ${i} finds`,
    tags: ['attack.t1059'],
    level: 'high',
    kind: 'detection',
    logsource: { product: 'windows' },
    detection: { selection: { Image: `x${i}.exe` }, condition: 'selection' },
    ...extra,
  }) as unknown as Doc;

const DOCS = [doc(1), doc(2), doc(3, { falsepositives: ['admins'] }), doc(4), doc(5, { falsepositives: ['none'] })];

function restored(): Doc[] {
  const { index, bodies } = storeDocuments(DOCS, DOCS, (d) => d as unknown as Record<string, unknown>);
  return restoreDocuments(index, bodies).detections;
}

// V8's own check, as a function compiled once the flag that allows it is on.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

describe('restoreDocuments', () => {
  it('gives documents equal to the stored ones, key order included, restore after restore', () => {
    for (let round = 0; round < 3; round++) {
      const docs = restored();
      expect(docs.map((d) => JSON.stringify(d))).toEqual(DOCS.map((d) => JSON.stringify(d)));
      expect(docs.map((d) => structuredClone(d))).toEqual(DOCS);
      expect(docs.map((d) => ({ ...d }))).toEqual(DOCS);
      expect(docs.every((d) => Object.getPrototypeOf(d) === Object.prototype)).toBe(true);
    }
  });

  it('keeps every restore’s documents fast objects (a second restore in a thread made them dictionaries)', () => {
    for (let round = 0; round < 3; round++) {
      const docs = restored();
      expect(docs.map(hasFastProperties)).toEqual(DOCS.map(() => true));
      // Reading a lazy field does not change that.
      expect(docs.map((d) => (d as unknown as { detection: unknown }).detection)).toEqual(DOCS.map((d) => (d as unknown as { detection: unknown }).detection));
      expect(docs.map(hasFastProperties)).toEqual(DOCS.map(() => true));
    }
  });
});
