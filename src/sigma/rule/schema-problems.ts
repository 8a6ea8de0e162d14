// Turns typebox validation errors into one readable problem per offending key path.
import type { Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import type { KeyPath } from './source-positions.js';

export interface SchemaProblem {
  readonly path: KeyPath;
  readonly message: string;
}

export function schemaProblems(validator: Validator, value: unknown): SchemaProblem[] {
  if (validator.Check(value)) return [];
  // `boolean` errors repeat what `additionalProperties` already says.
  const errors = validator.Errors(value).filter((e) => e.keyword !== 'boolean');
  const unions = errors
    .filter((e) => e.keyword === 'anyOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length)
    .filter((u, i, all) => !all.slice(0, i).some((outer) => inside(u, outer)));
  const problems: SchemaProblem[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && !unions.some((u) => inside(e, u))) problems.push(...describe(e));
  }
  for (const u of unions) problems.push(...describeUnion(u, errors.filter((e) => inside(e, u))));
  return problems;
}

function inside(e: TLocalizedValidationError, union: TLocalizedValidationError): boolean {
  return e.schemaPath.startsWith(`${union.schemaPath}/anyOf/`);
}

function describe(e: TLocalizedValidationError): SchemaProblem[] {
  const path = pointerPath(e.instancePath);
  switch (e.keyword) {
    case 'required':
      return e.params.requiredProperties.map((k) => ({ path: [...path, k], message: 'is required' }));
    case 'additionalProperties':
      return e.params.additionalProperties.map((k) => ({ path: [...path, k], message: 'is not an allowed key here' }));
    default:
      return [{ path, message: e.message }];
  }
}

// A union branch that got past the container type failed deeper: report that; otherwise list what was accepted.
function describeUnion(u: TLocalizedValidationError, branches: TLocalizedValidationError[]): SchemaProblem[] {
  const deeper = branches.filter((e) => e.instancePath.length > u.instancePath.length && e.keyword !== 'anyOf');
  if (deeper.length > 0) return deeper.flatMap(describe);
  const accepted = new Set<string>();
  for (const e of branches) {
    if (e.keyword === 'type') accepted.add(String(e.params.type));
    else if (e.keyword === 'const') accepted.add(`'${String(e.params.allowedValue)}'`);
    else if (e.instancePath === u.instancePath && e.keyword !== 'anyOf') accepted.add(`a value that ${e.message}`);
  }
  return [{ path: pointerPath(u.instancePath), message: `must be ${[...accepted].join(' or ')}` }];
}

function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}
