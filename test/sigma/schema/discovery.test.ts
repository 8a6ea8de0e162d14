// Discovery suggestions (daemon-semantics §13.4): clustering, predicates, naming, and YAML that the
// schema config takes back.
import Compile from 'typebox/compile';
import YAML from 'yaml';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaConfigFile } from '../../../protocol/index.js';
import { clusterShapes, SchemaClassifier, suggestSignatures } from '../../../sigma/index.js';

const shape = (keys: string[], count: number) => ({ keys: [...keys].sort(), count });

describe('clusterShapes', () => {
  it('joins a shape to the first cluster whose seed is at least 0.6 similar (Jaccard), biggest shapes first', () => {
    const clusters = clusterShapes([
      shape(['x', 'y'], 1),
      shape(['a', 'b', 'c', 'd'], 5),
      shape(['a', 'b', 'c', 'e'], 2), // 3/5 = 0.6 with the seed: joins
      shape(['a', 'b', 'f', 'g'], 4), // 2/6: a cluster of its own
      shape([], 9),
    ]);
    expect(clusters.map((c) => [[...c.seed].sort().join(''), c.total])).toEqual([
      ['abcd', 7],
      ['abfg', 4],
      ['xy', 1],
    ]);
  });

  it('puts every event of every non-empty shape in exactly one cluster (property)', () => {
    const arbShape = fc.record({ keys: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 6 }).map((k) => k.sort()), count: fc.integer({ min: 1, max: 9 }) });
    fc.assert(
      fc.property(fc.uniqueArray(arbShape, { selector: (s) => s.keys.join(','), maxLength: 12 }), (shapes) => {
        const clusters = clusterShapes(shapes);
        const events = shapes.filter((s) => s.keys.length > 0).reduce((n, s) => n + s.count, 0);
        expect(clusters.reduce((n, c) => n + c.total, 0)).toBe(events);
        for (const c of clusters) expect(c.samples.length).toBeLessThanOrEqual(3);
      }),
    );
  });
});

describe('suggestSignatures', () => {
  it('proposes presence predicates that separate each supported cluster, named after the first', () => {
    const s = suggestSignatures([shape(['req.id', 'req.path', 'status'], 6), shape(['job', 'queue', 'status'], 3), shape(['lonely'], 2)]);
    expect(s.summary).toEqual({ events_mined: 11, shapes: 3, clusters: 3, candidates: 2 });
    expect(s.candidates.map((c) => [c.name, c.predicates, c.support, c.specificity])).toEqual([
      ['discovered_req_id', ['field_present: req.id'], 6, 60],
      ['discovered_job', ['field_present: job'], 3, 60],
    ]);
    expect(s.candidates[0]?.coverage_of_unknown).toBeCloseTo(6 / 11);
  });

  it('adds predicates until the cluster is separated, at most three, warning when it never is', () => {
    // Cluster 1 {a,b,c,d} and cluster 2 {a,b,c,e,f,g}: no key of cluster 1 is outside cluster 2 but d.
    const s = suggestSignatures([shape(['a', 'b', 'c', 'd'], 5), shape(['a', 'b', 'c', 'e', 'f', 'g'], 4)]);
    const first = s.candidates.find((c) => c.support === 5);
    expect(first?.predicates).toEqual(['field_present: d']);
    const nested = suggestSignatures([shape(['a', 'b', 'c', 'd', 'e'], 5), shape(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'], 4)]);
    const inner = nested.candidates.find((c) => c.support === 5);
    expect(inner?.predicates).toHaveLength(3);
    expect(inner?.specificity).toBe(66);
    expect(inner?.overlap_warnings[0]).toMatch(/do not separate/);
  });

  it('de-duplicates names whose slugs collide with _2', () => {
    const s = suggestSignatures([shape(['app.x', 'p', 'q'], 3), shape(['app_x', 'r', 's', 't'], 3)]);
    expect(s.candidates.map((c) => [c.name, c.predicates[0]])).toEqual([
      ['discovered_app_x', 'field_present: app.x'],
      ['discovered_app_x_2', 'field_present: app_x'],
    ]);
  });

  it('renders YAML the schema config accepts, whose signatures then claim the shapes', () => {
    const s = suggestSignatures([shape(['req.id', 'req.path', 'status'], 6), shape(['job', 'queue'], 3)]);
    const parsed = YAML.parse(s.signatures_yaml) as unknown;
    expect(Compile(SchemaConfigFile).Check(parsed)).toBe(true);
    const c = new SchemaClassifier((parsed as SchemaConfigFile).schemas);
    expect(c.classify({ req: { id: 1, path: '/' }, status: 200 }).schema).toBe('discovered_req_id');
    expect(c.classify({ job: 'j', queue: 'q' }).schema).toBe('discovered_job');
  });

  it('is empty YAML without candidates', () => {
    expect(suggestSignatures([]).signatures_yaml).toBe('schemas: []\n');
  });
});
