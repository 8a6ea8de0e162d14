// Read-only views of the dynamic sources, field observer and schema observer reports; a feature the
// daemon has off shows the daemon's own "disabled" answer and hint.
import { describeFailure, getJson } from './api.js';
import { facts, h, replaceChildren, show, table, type Child } from './dom.js';

type Json = Readonly<Record<string, unknown>>;

function rowsOf(value: unknown, columns: readonly string[]): Child[][] {
  return (Array.isArray(value) ? (value as Json[]) : []).map((item) => columns.map((c) => show(item[c] ?? '')));
}

function summary(value: unknown): HTMLElement {
  return facts(Object.entries((value ?? {}) as Json).map(([k, v]) => [k.replaceAll('_', ' '), show(v)] as const));
}

function report(root: HTMLElement, title: string, path: string, draw: (body: Json) => Child[]): () => void {
  const body = h('div', {}, 'Loading…');
  replaceChildren(root, h('h2', {}, title), body);
  void getJson<Json>(path).then((r) => {
    if (!r.ok) replaceChildren(body, h('p', { class: r.status === 503 ? 'notice disabled' : 'notice error' }, r.status === 503 ? `Disabled: ${describeFailure(r)}` : describeFailure(r)));
    else replaceChildren(body, ...draw(r.value));
  });
  return () => undefined;
}

export function renderSources(root: HTMLElement): () => void {
  const columns = ['source_id', 'pipeline', 'type', 'refresh', 'required'];
  return report(root, 'Dynamic sources', 'api/v1/sources', (b) => [
    table('Registered sources', ['Source', 'Pipeline', 'Type', 'Refresh', 'Required'], rowsOf(b['sources'], columns), 'no pipeline declares dynamic sources.'),
  ]);
}

export function renderFields(root: HTMLElement): () => void {
  const items = (section: unknown) => (section as { items?: unknown } | undefined)?.items;
  return report(root, 'Fields', 'api/v1/fields', (b) => [
    summary(b['summary']),
    table('Fields no rule uses', ['Field', 'Count'], rowsOf(items(b['unknown']), ['field', 'count'])),
    table('Rule fields never seen', ['Field', 'Rules', 'Sources'], rowsOf(items(b['missing']), ['field', 'rule_count', 'sources'])),
  ]);
}

export function renderSchemas(root: HTMLElement): () => void {
  return report(root, 'Schemas', 'api/v1/schemas', (b) => [
    summary(b['summary']),
    table('Events by schema', ['Schema', 'Events'], rowsOf(b['by_schema'], ['schema', 'count'])),
    table('Unknown shapes', ['Keys', 'Events'], rowsOf(b['unknown_shapes'], ['keys', 'count'])),
  ]);
}
