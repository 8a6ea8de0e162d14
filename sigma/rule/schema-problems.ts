// Turns typebox validation errors into one readable problem per offending key path.
import type { Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import type { KeyPath } from './source-positions.js';

export interface SchemaProblem {
  readonly path: KeyPath;
  readonly message: string;
}

export function schemaProblems(validator: Pick<Validator, 'Check' | 'Errors'>, value: unknown): SchemaProblem[] {
  if (validator.Check(value)) return [];
  const unions = new Map<string, TLocalizedValidationError[]>();
  const problems: SchemaProblem[] = [];
  for (const e of validator.Errors(value)) {
    // `boolean` errors repeat what `additionalProperties` already says.
    if (e.keyword === 'boolean') continue;
    const union = outermostUnion(e);
    if (union === undefined) problems.push(...describe(e));
    else unions.set(union, [...(unions.get(union) ?? []), e]);
  }
  for (const members of unions.values()) problems.push(...describeUnion(members));
  const unique = new Map<string, SchemaProblem>();
  for (const p of problems) unique.set(`${p.path.join('\u0000')}\u0001${p.message}`, p);
  return [...unique.values()];
}

// Errors of union branches are grouped under the outermost union; the union's own `anyOf` error is not
// always reported, so the group is found from the schema paths.
function outermostUnion(e: TLocalizedValidationError): string | undefined {
  const i = e.schemaPath.indexOf('/anyOf/');
  if (i >= 0) return e.schemaPath.slice(0, i);
  return e.keyword === 'anyOf' ? e.schemaPath : undefined;
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

// A branch the value had the right type for failed on a constraint or deeper: report that; otherwise
// list the types and constants the union accepts.
function describeUnion(members: readonly TLocalizedValidationError[]): SchemaProblem[] {
  const base = members.find((e) => e.keyword === 'anyOf')?.instancePath ?? shortest(members.map((e) => e.instancePath));
  const specific = members.filter(
    (e) => e.keyword !== 'anyOf' && (e.instancePath !== base || (e.keyword !== 'type' && e.keyword !== 'const')),
  );
  if (specific.length > 0) return specific.flatMap(describe);
  const accepted = new Set<string>();
  for (const e of members) {
    if (e.keyword === 'type') accepted.add(String(e.params.type));
    else if (e.keyword === 'const') accepted.add(`'${String(e.params.allowedValue)}'`);
  }
  return [{ path: pointerPath(base), message: `must be ${[...accepted].join(' or ')}` }];
}

function shortest(paths: readonly string[]): string {
  return paths.reduce((a, b) => (b.length < a.length ? b : a), paths[0] ?? '');
}

function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}
