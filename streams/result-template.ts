/**
 * The `${…}` template language shared by webhooks and enrichers (daemon-semantics §7.2): compiled
 * once at load (malformed tokens and cross-namespace references are load errors), rendered per
 * result. Environment variables are read at compile time, so rendering does no I/O.
 */

export type ResultKind = 'detection' | 'correlation';

/** A result's kind, or undefined for records that are not detection/correlation results (incidents…). */
export function resultKind(result: Readonly<Record<string, unknown>>): ResultKind | undefined {
  if ('correlation_type' in result) return 'correlation';
  if ('matched_fields' in result) return 'detection';
  return undefined;
}

export type Escaping = 'identity' | 'json';

type Part = string | ((result: Readonly<Record<string, unknown>>) => unknown);

export interface CompiledTemplate {
  render(result: Readonly<Record<string, unknown>>): string;
}

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function walk(value: unknown, segments: readonly string[]): unknown {
  let v = value;
  for (const s of segments) {
    if (Array.isArray(v) && /^\d+$/.test(s)) v = v[Number(s)];
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) v = (v as Record<string, unknown>)[s];
    else return undefined;
  }
  return v;
}

function header(path: string): Part | undefined {
  switch (path) {
    case 'rule.title':
      return (r) => r['rule_title'];
    case 'rule.id':
      return (r) => r['rule_id'];
    case 'rule.level':
      return (r) => r['level'];
    case 'tags':
      return (r) => (Array.isArray(r['tags']) ? r['tags'].join(',') : '');
    default:
      return undefined;
  }
}

function detectionPart(path: string): Part {
  const common = header(path);
  if (common !== undefined) return common;
  if (path === 'event') return (r) => r['event'];
  if (path.startsWith('event.')) {
    const segments = path.slice('event.'.length).split('.');
    return (r) => walk(r['event'], segments);
  }
  if (path.startsWith('fields.')) {
    const name = path.slice('fields.'.length);
    return (r) => {
      const fields = r['matched_fields'];
      return Array.isArray(fields) ? (fields as { field?: unknown; value?: unknown }[]).find((f) => f.field === name)?.value : undefined;
    };
  }
  // Sub-paths are not validated: unknown ones render empty (§7.2).
  return () => undefined;
}

function correlationPart(path: string): Part {
  const common = header(path);
  if (common !== undefined) return common;
  switch (path) {
    case 'type':
      return (r) => r['correlation_type'];
    case 'aggregated_value':
      return (r) => r['aggregated_value'];
    case 'timespan_secs':
      return (r) => r['timespan_secs'];
    case 'group_key':
      return (r) => (Array.isArray(r['group_key']) ? (r['group_key'] as [string, string][]).map(([f, v]) => `${f}=${v}`).join(',') : '');
    default:
      if (path.startsWith('group_key.')) {
        const field = path.slice('group_key.'.length);
        return (r) => (Array.isArray(r['group_key']) ? (r['group_key'] as [string, string][]).find(([f]) => f === field)?.[1] : undefined);
      }
      return () => undefined;
  }
}

function compilePart(token: string, kind: ResultKind, env: Readonly<Record<string, string | undefined>>): Part {
  const dot = token.indexOf('.');
  if (token !== '' && dot === -1) return env[token] ?? '';
  const namespace = token.slice(0, dot);
  if (namespace !== 'detection' && namespace !== 'correlation') throw new TemplateError(`malformed reference \${${token}}`);
  if (namespace !== kind) throw new TemplateError(`\${${token}} is not allowed in a ${kind} entry (only \${${kind}.*} and environment variables)`);
  const path = token.slice(dot + 1);
  return kind === 'detection' ? detectionPart(path) : correlationPart(path);
}

/** Compiles `source`; `json` escaping serialises each substitution as a JSON string without its quotes. */
export function compileTemplate(source: string, kind: ResultKind, escaping: Escaping, env: Readonly<Record<string, string | undefined>>): CompiledTemplate {
  const parts: Part[] = [];
  const token = /\$\{([^}]*)\}/g;
  let at = 0;
  for (let m = token.exec(source); m !== null; m = token.exec(source)) {
    if (m.index > at) parts.push(source.slice(at, m.index));
    const part = compilePart(m[1] ?? '', kind, env);
    parts.push(typeof part === 'string' && escaping === 'json' ? JSON.stringify(part).slice(1, -1) : part);
    at = m.index + m[0].length;
  }
  if (at < source.length) parts.push(source.slice(at));
  return {
    render(result) {
      let out = '';
      for (const p of parts) {
        if (typeof p === 'string') out += p;
        else {
          const s = text(p(result));
          out += escaping === 'json' ? JSON.stringify(s).slice(1, -1) : s;
        }
      }
      return out;
    },
  };
}
