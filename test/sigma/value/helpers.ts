import { expect } from 'vitest';
import type { Scalar, SigmaValue } from '../../../sigma/ast.js';
import { SigmaError } from '../../../sigma/errors.js';
import { buildDetectionItem, type BuiltItem } from '../../../sigma/value/index.js';

/** Build an item from a YAML-style key (`Field|mod|mod`, `|mod` for keywords). */
export function build(key: string, values: Scalar | readonly Scalar[]): BuiltItem {
  const [field, ...mods] = key.split('|');
  return buildDetectionItem(field === '' ? null : (field as string), mods, Array.isArray(values) ? values : [values as Scalar]);
}

export function only(key: string, value: Scalar): SigmaValue {
  const v = build(key, value).item.values;
  expect(v).toHaveLength(1);
  return v[0] as SigmaValue;
}

export function failure(key: string, values: Scalar | readonly Scalar[]): SigmaError {
  try {
    build(key, values);
  } catch (e) {
    if (e instanceof SigmaError) return e;
    throw e;
  }
  throw new Error(`expected '${key}' to be rejected`);
}

export function warningCodes(key: string, values: Scalar | readonly Scalar[]): string[] {
  return build(key, values).warnings.map((w) => w.code);
}
