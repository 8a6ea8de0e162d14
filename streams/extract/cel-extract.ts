import { Environment } from '@marcbachmann/cel-js';
import { ExtractCompileError, ExtractEvalError, firstLine, type Extractor } from './extractor.js';

/** CEL sees the input as the one variable `data` (interface.md, dynamic sources); any other name is refused at load. */
const environment = new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false }).registerVariable('data', 'dyn');

export function compileCel(expression: string): Extractor {
  let program: ReturnType<Environment['parse']>;
  try {
    program = environment.parse(expression);
  } catch (err) {
    throw new ExtractCompileError('cel', expression, firstLine(err), { cause: err });
  }
  const checked = program.check();
  if (!checked.valid) throw new ExtractCompileError('cel', expression, firstLine(checked.error), { cause: checked.error });
  const evaluate = (input: unknown): unknown => {
    try {
      return toJson(program({ data: input }));
    } catch (err) {
      throw new ExtractEvalError('cel', expression, firstLine(err), { cause: err });
    }
  };
  // A CEL expression has exactly one value.
  return { language: 'cel', expression, evaluate, outputs: (input) => [evaluate(input)] };
}

/** CEL ints are BigInt and its maps may be `Map`s: turn the result into plain JSON for injection. */
function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value === undefined) return null;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return value;
}
