// Validates one unit's parameters against its typebox schema, naming unknown keys and the bad key path.
import Compile from 'typebox/compile';
import type { TSchema } from 'typebox';
import type { SourceLoc } from '../ast.js';
import { SigmaError } from '../errors.js';

export type Locate = (path: readonly (string | number)[]) => SourceLoc;

// Alternative spellings (rsigma's dialect) accepted when the unit has the canonical key only.
const PARAM_ALIASES: Readonly<Record<string, string>> = { match_type: 'mode', case_type: 'method', value: 'val' };

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function validator(schema: TSchema): ReturnType<typeof Compile> {
  let v = validators.get(schema);
  if (!v) {
    v = Compile(schema);
    validators.set(schema, v);
  }
  return v;
}

function schemaKeys(schema: TSchema): readonly string[] {
  const properties: unknown = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/**
 * Returns the parameters (aliases renamed) when they fit `schema`, otherwise pushes errors and returns
 * undefined. `what` names the unit in messages, e.g. "transformation 'field_name_mapping'"; `noun` is
 * what its keys are called.
 */
export function checkParams(
  schema: TSchema,
  raw: Readonly<Record<string, unknown>>,
  what: string,
  path: readonly (string | number)[],
  locate: Locate,
  errors: SigmaError[],
  noun: 'parameter' | 'key' = 'parameter',
): unknown {
  const known = schemaKeys(schema);
  const params: Record<string, unknown> = {};
  let ok = true;
  for (const [key, value] of Object.entries(raw)) {
    const alias = PARAM_ALIASES[key];
    const name = !known.includes(key) && alias !== undefined && known.includes(alias) ? alias : key;
    if (!known.includes(name)) {
      const list = known.length > 0 ? known.join(', ') : 'none';
      errors.push(
        new SigmaError('pipeline', `pipeline_unknown_${noun}`, `unknown ${noun} '${key}' of ${what} (known: ${list})`, locate([...path, key])),
      );
      ok = false;
      continue;
    }
    params[name] = value;
  }
  if (!ok) return undefined;
  const v = validator(schema);
  if (v.Check(params)) return params;
  const before = errors.length;
  const found = [...v.Errors(params)].filter((e) => e.keyword !== 'boolean');
  // A value matching no branch of a union gets one message, not one per branch.
  const unions = found.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath);
  const reported = new Set<string>();
  for (const e of found) {
    const isUnion = e.keyword === 'anyOf' || e.keyword === 'oneOf';
    if (!isUnion && unions.some((u) => e.instancePath === u || e.instancePath.startsWith(`${u}/`))) continue;
    const sub = e.instancePath.split('/').filter((s) => s !== '');
    const message = isUnion ? 'has a value of none of the allowed types' : e.message;
    if (reported.has(e.instancePath + message)) continue;
    reported.add(e.instancePath + message);
    errors.push(new SigmaError('pipeline', 'pipeline_invalid_parameter', `${what}: ${sub.length > 0 ? `'${sub.join('.')}' ` : ''}${message}`, locate([...path, ...sub])));
  }
  if (errors.length === before) {
    errors.push(new SigmaError('pipeline', 'pipeline_invalid_parameter', `${what}: invalid parameters`, locate(path)));
  }
  return undefined;
}
