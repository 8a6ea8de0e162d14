// `GET /api/v1/incidents/{id}/bundle` (daemon-semantics §9.11): an open incident with the
// documentation of the rules that contributed to it, as JSON or Markdown.
import type { AlertResult, RiskEntityView } from '../actors/index.js';
import type { RuleMeta } from '../sigma/index.js';

/** The loaded rules' documentation, read when a bundle is asked for (the set a reload put in force). */
export type BundleRules = () => readonly (RuleMeta & { readonly kind: 'detection' | 'correlation' })[];

export type BundleFormat = 'json' | 'markdown';

interface RuleDocument {
  readonly identity: { readonly kind: string; readonly id: string | null; readonly title: string };
  readonly level?: string;
  readonly tags?: readonly string[];
  readonly ads: { readonly sections: readonly { readonly title: string; readonly text: string }[] };
}

function documentOf(rule: RuleMeta & { readonly kind: string }): RuleDocument {
  const sections: { title: string; text: string }[] = [];
  if (rule.description !== undefined) sections.push({ title: 'Description', text: rule.description });
  if (rule.falsepositives !== undefined && rule.falsepositives.length > 0) sections.push({ title: 'False positives', text: rule.falsepositives.join('; ') });
  if (rule.references !== undefined && rule.references.length > 0) sections.push({ title: 'References', text: rule.references.join('\n') });
  return {
    identity: { kind: rule.kind, id: rule.id ?? null, title: rule.title },
    ...(rule.level !== undefined ? { level: rule.level } : {}),
    ...(rule.tags.length > 0 ? { tags: rule.tags } : {}),
    ads: { sections },
  };
}

/** The open risk entities, or undefined when no risk accumulator exists (no `risk` join then). */
export type BundleRisk = () => readonly RiskEntityView[] | undefined;

function riskObjectsOf(result: unknown): readonly { type?: unknown; value?: unknown }[] {
  const enrichments = typeof result === 'object' && result !== null ? (result as AlertResult)['enrichments'] : undefined;
  const objects = typeof enrichments === 'object' && enrichments !== null ? (enrichments as AlertResult)['risk.objects'] : undefined;
  return Array.isArray(objects) ? (objects as { type?: unknown; value?: unknown }[]) : [];
}

/**
 * The risk join of §9.11: an entity matches on `risk_object` when a retained full result carries it
 * in `risk.objects`, else on `group_key` when its type is the last segment of a `group_by` or
 * `entities` selector whose value is the entity's.
 */
export function riskJoin(incident: AlertResult, entities: readonly RiskEntityView[]): Record<string, unknown>[] {
  const results = Array.isArray(incident['results']) ? (incident['results'] as unknown[]) : [];
  const keyed: [string, string][] = [
    ...Object.entries((incident['group_by'] ?? {}) as Record<string, unknown>).map(([sel, v]): [string, string] => [sel, typeof v === 'string' ? v : JSON.stringify(v)]),
    ...Object.entries((incident['entities'] ?? {}) as Record<string, string[]>).flatMap(([sel, values]) => values.map((v): [string, string] => [sel, v])),
  ];
  const out: Record<string, unknown>[] = [];
  for (const e of entities) {
    const type = e.entity_type.toLowerCase();
    if (results.some((r) => riskObjectsOf(r).some((o) => o.type === e.entity_type && o.value === e.entity_value))) out.push({ matched_on: 'risk_object', ...e });
    else if (keyed.some(([sel, v]) => v === e.entity_value && (sel.split('.').pop() ?? '').toLowerCase() === type)) out.push({ matched_on: 'group_key', ...e });
  }
  return out;
}

/** The bundle's JSON object (schema_version 1); `risk` joins the open risk entities when an accumulator exists. */
export function bundleOf(incident: AlertResult, rules: BundleRules, generatedAt: Date, risk?: BundleRisk): Record<string, unknown> {
  const loaded = rules();
  const counts = (incident['rule_counts'] ?? {}) as Record<string, number>;
  const entities = risk?.();
  return {
    schema_version: 1,
    generated_at: generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    sources: { rules: true, risk: entities !== undefined },
    incident,
    rules: Object.entries(counts).map(([key, count]) => {
      const documents = loaded.filter((r) => r.id === key || (r.id === undefined && r.title === key)).map(documentOf);
      const distinct = new Set(documents.map((d) => JSON.stringify(d))).size;
      return { key, count, resolution: documents.length === 0 ? 'missing' : distinct > 1 ? 'ambiguous' : 'unique', documents };
    }),
    ...(entities !== undefined ? { risk: riskJoin(incident, entities) } : {}),
  };
}

function markdownOf(bundle: Record<string, unknown>): string {
  const inc = bundle['incident'] as AlertResult;
  const rules = bundle['rules'] as { key: string; count: number; resolution: string; documents: RuleDocument[] }[];
  const lines = [
    `# Incident ${String(inc['incident_id'])}`,
    '',
    `- state: ${String(inc['state'])}`,
    `- first seen: ${new Date(Number(inc['first_seen']) * 1000).toISOString()}`,
    `- last seen: ${new Date(Number(inc['last_seen']) * 1000).toISOString()}`,
    `- results: ${String(inc['result_count'])}`,
    ...(inc['max_level'] !== undefined ? [`- max level: ${String(inc['max_level'])}`] : []),
    ...Object.entries((inc['group_by'] ?? {}) as Record<string, unknown>).map(([k, v]) => `- ${k}: ${JSON.stringify(v)}`),
    ...Object.entries((inc['entities'] ?? {}) as Record<string, string[]>).map(([k, v]) => `- ${k}: ${v.join(', ')}`),
    '',
    '## Rules',
  ];
  for (const r of rules) {
    lines.push('', `### ${r.key} (${r.count} result${r.count === 1 ? '' : 's'}, ${r.resolution})`);
    for (const d of r.documents) {
      lines.push('', `**${d.identity.title}** (${d.identity.kind}${d.level !== undefined ? `, ${d.level}` : ''})`);
      if (d.tags !== undefined) lines.push('', `Tags: ${d.tags.join(', ')}`);
      for (const s of d.ads.sections) lines.push('', `#### ${s.title}`, '', s.text);
    }
  }
  const risk = bundle['risk'] as (RiskEntityView & { matched_on: string })[] | undefined;
  if (risk !== undefined) {
    lines.push('', '## Risk', '');
    if (risk.length === 0) lines.push('No open risk entity matches this incident.');
    for (const e of risk) lines.push(`- ${e.entity_type} ${e.entity_value}: score ${e.score}, ${e.tactic_count} tactic(s), ${e.result_count} result(s) (matched on ${e.matched_on})`);
  }
  lines.push('', `_Generated ${String(bundle['generated_at'])}_`, '');
  return lines.join('\n');
}

/** The response body and content type of a bundle. */
export function renderBundle(incident: AlertResult, rules: BundleRules, format: BundleFormat, generatedAt: Date, risk?: BundleRisk): { readonly contentType: string; readonly body: string } {
  const bundle = bundleOf(incident, rules, generatedAt, risk);
  return format === 'json'
    ? { contentType: 'application/json', body: JSON.stringify(bundle, null, 2) }
    : { contentType: 'text/markdown; charset=utf-8', body: markdownOf(bundle) };
}
