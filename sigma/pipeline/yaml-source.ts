// YAML text → plain data for the pipeline parser, keeping a way back from a key path to a line/column.
import { LineCounter, isMap, isNode, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import type { SourceLoc } from '../ast.js';
import { SigmaError } from '../errors.js';

/**
 * Key standing for a YAML `null` mapping key (pySigma's `None`), which maps keyword items in
 * `field_name_mapping`. A quoted `'null'` stays the string "null".
 */
export const NULL_KEY = '\u0000null';

export interface YamlSource {
  readonly value: unknown;
  /** Location of the node at `path` (or its nearest existing ancestor). */
  locate(path: readonly (string | number)[]): SourceLoc;
}

export function readYaml(text: string, file: string): { source?: YamlSource; errors: SigmaError[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, logLevel: 'silent' });
  const at = (offset: number | undefined, path: readonly (string | number)[]): SourceLoc => {
    if (offset === undefined) return { file, path };
    const { line, col } = lineCounter.linePos(offset);
    return { file, path, line, col };
  };
  if (doc.errors.length > 0) {
    return {
      errors: doc.errors.map(
        (e) => new SigmaError('pipeline', 'yaml_syntax', e.message.split('\n')[0] ?? e.message, at(e.pos[0], [])),
      ),
    };
  }
  // Points at the key of a mapping entry (where an unknown or invalid key is written), else at the node.
  const locate = (path: readonly (string | number)[]): SourceLoc => {
    for (let n = path.length; n > 0; n--) {
      const parent: unknown = doc.getIn(path.slice(0, n - 1).map(toYamlKey), true);
      const last = toYamlKey(path[n - 1] ?? '');
      if (isMap(parent)) {
        const pair = parent.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === last);
        if (pair && isNode(pair.key)) return at(pair.key.range?.[0], path);
      } else if (isSeq(parent) && typeof last === 'number') {
        const item: unknown = parent.items[last];
        if (isNode(item)) return at(item.range?.[0], path);
      }
    }
    return isNode(doc.contents) ? at(doc.contents.range[0], path) : { file, path };
  };
  return { source: { value: toPlain(doc.contents), locate }, errors: [] };
}

function toYamlKey(k: string | number): unknown {
  return k === NULL_KEY ? null : k;
}

function toPlain(node: Node | null | undefined | unknown): unknown {
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      out[key === null || key === undefined ? NULL_KEY : String(key)] = toPlain(pair.value);
    }
    return out;
  }
  if (isSeq(node)) return node.items.map(toPlain);
  if (isScalar(node)) return node.value;
  return node ?? null;
}
