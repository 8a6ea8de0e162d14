// A schema's compiled validator, compiled when it is first used. Compiling generates code and evaluates it
// (0.2–7 ms a schema); done at import time by every module that keeps a validator, it cost every process
// start ≈ 15 ms (issue 19 §2), most of it for features a given run never uses (OTLP/JSON, dispositions,
// risk, rule parsing on a start from the compiled-rule cache).
import type { TSchema } from 'typebox';
import Compile, { type Validator } from 'typebox/compile';

/** The methods of a compiled validator this code base calls. */
export type OnUseValidator<T extends TSchema> = Pick<Validator<{}, T>, 'Check' | 'Errors' | 'Clean' | 'Convert' | 'Default'>;

export function compileOnUse<const T extends TSchema>(schema: T): OnUseValidator<T> {
  let compiled: Validator<{}, T> | undefined;
  const validator = (): Validator<{}, T> => (compiled ??= Compile<T, Validator<{}, T>>(schema));
  return {
    Check: ((value: unknown) => validator().Check(value)) as Validator<{}, T>['Check'],
    Errors: (value) => validator().Errors(value),
    Clean: (value) => validator().Clean(value),
    Convert: (value) => validator().Convert(value),
    Default: (value) => validator().Default(value),
  };
}
