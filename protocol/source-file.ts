import Type from 'typebox';
import { ExtractSpecSchema } from './extract.js';
import { literalUnion } from './literal-union.js';

/**
 * A dynamic-source declaration file (`--source FILE_OR_DIR`, daemon-semantics §11.1): a top-level
 * `sources:` list. Strict: an unknown key is refused and named. Durations are humantime text (§0) or
 * bare seconds; type-specific keys are checked against `type` by the loader.
 */

const strict = { additionalProperties: false } as const;

const SOURCE_TYPES = ['file', 'http', 'command', 'nats'] as const;
const SOURCE_FORMATS = ['json', 'yaml', 'yml', 'lines', 'csv'] as const;
const SOURCE_ERROR_POLICIES = ['use_cached', 'fail', 'use_default'] as const;

const Duration = Type.Union([Type.String({ minLength: 1 }), Type.Number({ minimum: 0 })]);

export const SourceEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_]+$' }),
    type: literalUnion(SOURCE_TYPES),
    format: Type.Optional(literalUnion(SOURCE_FORMATS)),
    extract: Type.Optional(ExtractSpecSchema),
    /** `once`, `watch`, `push`, `on_demand` or a duration. */
    refresh: Type.Optional(Duration),
    timeout: Type.Optional(Duration),
    on_error: Type.Optional(literalUnion(SOURCE_ERROR_POLICIES)),
    required: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Unknown()),
    max_body_size: Type.Optional(Type.Integer({ minimum: 1 })),
    max_stdout: Type.Optional(Type.Integer({ minimum: 1 })),
    // file
    path: Type.Optional(Type.String({ minLength: 1 })),
    // http and nats
    url: Type.Optional(Type.String({ minLength: 1 })),
    method: Type.Optional(Type.String({ pattern: '^[A-Za-z]+$' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Optional(Type.String()),
    // command: argv, or one string naming a program run without arguments
    command: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String(), { minItems: 1 })])),
    // nats
    subject: Type.Optional(Type.String({ pattern: '^[^\\s*>]+$' })),
  },
  strict,
);
export type SourceEntry = Type.Static<typeof SourceEntrySchema>;

export const SourceFileSchema = Type.Object({ sources: Type.Array(Type.Unknown()) }, strict);
