// Multi-document collections (sigma-semantics §1.7): `action: global | reset | repeat` and the global
// template merge, pySigma style (the global wins on conflicts).
import { SigmaError } from '../errors.js';
import type { SigmaWarning } from '../errors.js';
import { deepMerge } from './deep-merge.js';
import type { Positioned } from './deep-merge.js';
import { isPlainObject } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { locate } from './source-positions.js';
import type { PositionIndex } from './source-positions.js';
import type { YamlDocument } from './yaml-documents.js';

/** A document ready to be parsed as a rule: collection actions applied. */
export interface RawDocument {
  readonly index: number;
  readonly value: PlainObject;
  readonly positions: PositionIndex;
}

export interface CollectionResult {
  readonly documents: readonly RawDocument[];
  readonly errors: readonly SigmaError[];
  readonly warnings: readonly SigmaWarning[];
}

export function applyCollectionActions(docs: readonly YamlDocument[], file: string): CollectionResult {
  const documents: RawDocument[] = [];
  const errors: SigmaError[] = [];
  const warnings: SigmaWarning[] = [];
  let global: Positioned | undefined;
  let previous: Positioned | undefined;

  for (const doc of docs) {
    const where = (path: readonly string[]) => ({ file, doc: doc.index, path, ...locate(doc.positions, path) });
    if (doc.value === null) {
      warnings.push({ code: 'EmptyDocument', message: 'empty YAML document skipped', loc: where([]) });
      continue;
    }
    if (!isPlainObject(doc.value)) {
      errors.push(new SigmaError('parse', 'NotAMapping', 'a rule document must be a mapping', where([])));
      continue;
    }
    const current: Positioned = { value: doc.value, positions: doc.positions };
    if (!Object.hasOwn(doc.value, 'action')) {
      if (Object.hasOwn(doc.value, 'correlation') || Object.hasOwn(doc.value, 'filter')) {
        documents.push({ index: doc.index, ...current });
        continue;
      }
      previous = global ? deepMerge(current, global) : current;
      documents.push({ index: doc.index, ...previous });
      continue;
    }
    const action = doc.value['action'];
    if (action === 'global') {
      const { action: _dropped, ...template } = doc.value;
      global = { value: template, positions: doc.positions };
      previous = global;
    } else if (action === 'reset') {
      global = undefined;
    } else if (action === 'repeat') {
      if (!previous) {
        errors.push(new SigmaError('parse', 'RepeatWithoutPrevious', "'action: repeat' has no previous document to repeat", where(['action'])));
        continue;
      }
      // pySigma keeps `action: repeat` in the merged document, where it ends up a custom attribute.
      previous = deepMerge(previous, current);
      documents.push({ index: doc.index, ...previous });
    } else {
      errors.push(new SigmaError('parse', 'UnknownCollectionAction', `unknown Sigma collection action '${String(action)}'`, where(['action'])));
    }
  }
  return { documents, errors, warnings };
}
