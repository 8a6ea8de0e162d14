import Type from 'typebox';
import { ScopeSchema } from './alert-pipeline.js';

/**
 * A webhook file (`--webhook FILE_OR_DIR`, daemon-semantics §12.1): a top-level `webhooks:` list.
 * Strict: an unknown key is refused and named. Durations are humantime text (§0).
 */

const strict = { additionalProperties: false } as const;
const duration = () => Type.String({ minLength: 1 });

const CustomSigningSchema = Type.Object(
  {
    algorithm: Type.Optional(Type.Union([Type.Literal('sha256'), Type.Literal('sha512')])),
    encoding: Type.Optional(Type.Union([Type.Literal('hex'), Type.Literal('base64')])),
    signature_header: Type.String({ minLength: 1 }),
    value_format: Type.String({ pattern: '\\{signature\\}' }),
    signed_payload: Type.String({ minLength: 1 }),
    timestamp_header: Type.Optional(Type.String({ minLength: 1 })),
    id_header: Type.Optional(Type.String({ minLength: 1 })),
  },
  strict,
);

const SigningSchema = Type.Object(
  {
    secret_env: Type.String({ minLength: 1 }),
    secret_encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')])),
    scheme: Type.Optional(Type.Union([Type.Literal('standard'), Type.Literal('github'), Type.Literal('custom')])),
    rotate_secret_env: Type.Optional(Type.String({ minLength: 1 })),
    custom: Type.Optional(CustomSigningSchema),
  },
  strict,
);

export const WebhookEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('detection'), Type.Literal('correlation')]),
    url: Type.String({ pattern: '\\S' }),
    method: Type.Optional(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" })),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String())),
    body: Type.Optional(Type.String()),
    timeout: Type.Optional(duration()),
    retry: Type.Optional(
      Type.Object(
        { attempts: Type.Optional(Type.Integer({ minimum: 1 })), backoff: Type.Optional(duration()), max_backoff: Type.Optional(duration()) },
        strict,
      ),
    ),
    rate_limit: Type.Optional(Type.Object({ requests: Type.Integer({ minimum: 1 }), per: duration() }, strict)),
    scope: Type.Optional(ScopeSchema),
    queue_size: Type.Optional(Type.Integer({ minimum: 1 })),
    tls: Type.Optional(
      Type.Object(
        { ca: Type.Optional(Type.String({ minLength: 1 })), client_cert: Type.Optional(Type.String({ minLength: 1 })), client_key: Type.Optional(Type.String({ minLength: 1 })) },
        strict,
      ),
    ),
    signing: Type.Optional(SigningSchema),
  },
  strict,
);
export type WebhookEntry = Type.Static<typeof WebhookEntrySchema>;

export const WebhookFileSchema = Type.Object({ webhooks: Type.Array(Type.Unknown()) }, strict);
