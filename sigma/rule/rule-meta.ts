// Attributes every document kind shares (sigma-semantics §1.2–1.4): validated, normalised, and the
// non-standard keys collected as custom attributes.
import Type from 'typebox';
import { compileOnUse, literalUnion } from '../../protocol/index.js';
import type { Level, RuleMeta } from '../ast.js';
import type { DocumentContext } from './document-context.js';
import type { PlainObject } from './plain-data.js';
import { setOwn } from './plain-data.js';
import { schemaProblems } from './schema-problems.js';

const RELATION_TYPES = ['derived', 'obsolete', 'merged', 'renamed', 'similar', 'correlation'] as const;

const RuleAttributesSchema = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 256 }),
  id: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  related: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1 }),
        type: literalUnion(RELATION_TYPES),
      }),
    ),
  ),
  taxonomy: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  status: Type.Optional(Type.String()),
  description: Type.Optional(Type.String({ maxLength: 65_535 })),
  license: Type.Optional(Type.String()),
  author: Type.Optional(Type.String()),
  references: Type.Optional(Type.Array(Type.String())),
  date: Type.Optional(Type.String()),
  modified: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  level: Type.Optional(Type.String()),
  falsepositives: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  fields: Type.Optional(Type.Array(Type.String())),
  scope: Type.Optional(Type.Array(Type.String())),
  custom_attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
type RuleAttributes = Type.Static<typeof RuleAttributesSchema>;

const checkAttributes = compileOnUse(RuleAttributesSchema);

/** Top-level keys that are standard for every kind; the rest (minus the kind's own keys) are custom. */
const STANDARD_KEYS: ReadonlySet<string> = new Set(Object.keys(RuleAttributesSchema.properties));

const STATUSES = new Set(['stable', 'test', 'experimental', 'deprecated', 'unsupported']);
const LEVELS: ReadonlySet<string> = new Set<Level>(['informational', 'low', 'medium', 'high', 'critical']);
const TAG_NAMESPACES = new Set(['attack', 'car', 'cve', 'd3fend', 'detection', 'stp', 'tlp']);
const TAG_PATTERN = /^[a-z0-9_-]+\.[a-z0-9._-]+$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$|^\d{4}\/\d{1,2}\/\d{1,2}$/;

/**
 * Validate the shared attributes of `raw`. Sets `ctx.ruleId` first so every later message names the rule.
 * Returns undefined when the attributes are unusable (errors are in `ctx`).
 */
export function parseRuleMeta(raw: PlainObject, ctx: DocumentContext, kindKeys: readonly string[]): RuleMeta | undefined {
  const id = raw['id'];
  const title = raw['title'];
  if (typeof id === 'string' && id !== '') ctx.ruleId = id;
  else if (typeof title === 'string' && title !== '') ctx.ruleId = title;

  const problems = schemaProblems(checkAttributes, raw);
  for (const p of problems) ctx.error('parse', 'InvalidAttribute', p.message, p.path);
  if (problems.length > 0 || !checkAttributes.Check(raw)) return undefined;
  const a: RuleAttributes = raw;

  if (a.id !== undefined && !UUID_PATTERN.test(a.id)) ctx.warn('NonUuidId', `id '${a.id}' is not a UUID`, ['id']);
  const status = a.status?.toLowerCase();
  if (status !== undefined && !STATUSES.has(status)) {
    ctx.error('parse', 'InvalidStatus', `unknown status '${a.status ?? ''}' (expected one of ${[...STATUSES].join(', ')})`, ['status']);
  }
  const level = a.level?.toLowerCase();
  if (level !== undefined && !isLevel(level)) {
    ctx.error('parse', 'InvalidLevel', `unknown level '${a.level ?? ''}' (expected one of ${[...LEVELS].join(', ')})`, ['level']);
  }
  for (const key of ['date', 'modified'] as const) {
    const v = a[key];
    if (v !== undefined && !DATE_PATTERN.test(v)) ctx.warn('InvalidDate', `'${v}' is not a YYYY-MM-DD date`, [key]);
  }
  const tags = a.tags ?? [];
  tags.forEach((tag, i) => checkTag(tag, ctx, ['tags', i]));
  if (ctx.failed) return undefined;

  return {
    file: ctx.file,
    doc: ctx.doc,
    title: a.title,
    ...(a.id !== undefined ? { id: a.id } : {}),
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(a.description !== undefined ? { description: a.description } : {}),
    ...(a.author !== undefined ? { author: a.author } : {}),
    ...(a.date !== undefined ? { date: a.date } : {}),
    ...(a.modified !== undefined ? { modified: a.modified } : {}),
    ...(a.references !== undefined ? { references: a.references } : {}),
    tags,
    ...(level !== undefined && isLevel(level) ? { level } : {}),
    ...(a.falsepositives !== undefined
      ? { falsepositives: typeof a.falsepositives === 'string' ? [a.falsepositives] : a.falsepositives }
      : {}),
    ...(a.fields !== undefined ? { fields: a.fields } : {}),
    custom: customAttributes(raw, a.custom_attributes, kindKeys),
  };
}

function isLevel(s: string): s is Level {
  return LEVELS.has(s);
}

function checkTag(tag: string, ctx: DocumentContext, path: readonly (string | number)[]): void {
  const dot = tag.indexOf('.');
  if (dot <= 0) {
    ctx.error('parse', 'InvalidTag', `tag '${tag}' has no namespace (expected namespace.name)`, path);
    return;
  }
  if (!TAG_PATTERN.test(tag)) ctx.warn('TagCharacters', `tag '${tag}' should match ${TAG_PATTERN.source}`, path);
  const namespace = tag.slice(0, dot);
  if (!TAG_NAMESPACES.has(namespace)) ctx.warn('UnknownTagNamespace', `tag namespace '${namespace}' is not a known one`, path);
}

// The explicit `custom_attributes:` block wins over same-named top-level keys (rsigma precedence).
function customAttributes(
  raw: PlainObject,
  explicit: Readonly<Record<string, unknown>> | undefined,
  kindKeys: readonly string[],
): Readonly<Record<string, unknown>> {
  const custom: PlainObject = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!STANDARD_KEYS.has(k) && !kindKeys.includes(k)) setOwn(custom, k, v);
  }
  for (const [k, v] of Object.entries(explicit ?? {})) setOwn(custom, k, v);
  return custom;
}
