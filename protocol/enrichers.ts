import Type from 'typebox';
import { ScopeSchema } from './alert-pipeline.js';
import { ExtractLanguageSchema } from './extract.js';
import { literalUnion } from './literal-union.js';

/**
 * An enrichers file (`--enrichers PATH`, daemon-semantics §7.1). Strict where the reference is lax: an
 * unknown key, or a key of another primitive (`url` on a `template` enricher), is refused and named.
 * Durations are humantime text (§0).
 */

const strict = { additionalProperties: false } as const;
const duration = () => Type.String({ minLength: 1 });

const ENRICHER_TYPES = ['template', 'lookup', 'http', 'command'] as const;
export type EnricherType = (typeof ENRICHER_TYPES)[number];
const ON_ERROR_POLICIES = ['skip', 'null', 'drop'] as const;
export type OnErrorPolicy = (typeof ON_ERROR_POLICIES)[number];

export const EnricherEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    kind: literalUnion(['detection', 'correlation']),
    type: literalUnion(ENRICHER_TYPES),
    inject_field: Type.String({ minLength: 1 }),
    timeout: Type.Optional(duration()),
    on_error: Type.Optional(literalUnion(ON_ERROR_POLICIES)),
    scope: Type.Optional(ScopeSchema),
    template: Type.Optional(Type.String()),
    url: Type.Optional(Type.String({ pattern: '\\S' })),
    method: Type.Optional(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String())),
    body: Type.Optional(Type.String()),
    cache_ttl: Type.Optional(duration()),
    extract: Type.Optional(Type.String({ minLength: 1 })),
    extract_type: Type.Optional(ExtractLanguageSchema),
    command: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String())),
    output: Type.Optional(literalUnion(['json', 'raw'])),
    source: Type.Optional(Type.String({ minLength: 1 })),
    default: Type.Optional(Type.Unknown()),
  },
  strict,
);
export type EnricherEntry = Type.Static<typeof EnricherEntrySchema>;

/** The keys each primitive takes beside the common ones, and those of them it requires. */
export const ENRICHER_KEYS: Readonly<Record<EnricherType, { readonly allowed: readonly (keyof EnricherEntry)[]; readonly required: readonly (keyof EnricherEntry)[] }>> = {
  template: { allowed: ['template'], required: ['template'] },
  lookup: { allowed: ['source', 'extract', 'extract_type', 'default'], required: ['source'] },
  http: { allowed: ['url', 'method', 'headers', 'body', 'cache_ttl', 'extract', 'extract_type'], required: ['url'] },
  command: { allowed: ['command', 'env', 'output'], required: ['command'] },
};

export const EnrichersFileSchema = Type.Object(
  {
    max_concurrent_enrichments: Type.Optional(Type.Integer({ minimum: 0 })),
    enrichers: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
  },
  strict,
);
export type EnrichersFile = Type.Static<typeof EnrichersFileSchema>;
