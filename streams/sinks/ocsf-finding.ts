/**
 * `?format=ocsf` line sinks: each native line becomes an OCSF 1.1.0 Detection Finding (class 2004,
 * daemon-semantics §4.2). Dedup `repeat`/`resolved` records and risk events stay native lines.
 * `metadata.uid` and `finding_info.uid` carry the line's deterministic `result_id`, so a consumer
 * (and the file sink's restart check) recognises a re-delivered finding.
 */
import type { Clock } from '../stage-context.js';
import { withLineFormat, type SinkTarget } from './sink-worker.js';

type Json = Record<string, unknown>;

const SEVERITIES: Readonly<Record<string, readonly [number, string]>> = {
  informational: [1, 'Informational'],
  low: [2, 'Low'],
  medium: [3, 'Medium'],
  high: [4, 'High'],
  critical: [5, 'Critical'],
};

const ACTIVITIES = { create: [1, 'Create'], update: [2, 'Update'], close: [3, 'Close'] } as const;

/** MITRE ATT&CK enterprise tactics by their Sigma tag name. */
const TACTICS: Readonly<Record<string, readonly [string, string]>> = {
  reconnaissance: ['TA0043', 'Reconnaissance'],
  resource_development: ['TA0042', 'Resource Development'],
  initial_access: ['TA0001', 'Initial Access'],
  execution: ['TA0002', 'Execution'],
  persistence: ['TA0003', 'Persistence'],
  privilege_escalation: ['TA0004', 'Privilege Escalation'],
  defense_evasion: ['TA0005', 'Defense Evasion'],
  credential_access: ['TA0006', 'Credential Access'],
  discovery: ['TA0007', 'Discovery'],
  lateral_movement: ['TA0008', 'Lateral Movement'],
  collection: ['TA0009', 'Collection'],
  command_and_control: ['TA0011', 'Command and Control'],
  exfiltration: ['TA0010', 'Exfiltration'],
  impact: ['TA0040', 'Impact'],
};

const TECHNIQUE = /^attack\.(t\d{4}(?:\.\d{3})?)$/i;

/** Keys of the native line the finding maps; every other key goes under `unmapped`. */
const MAPPED = new Set(['result_id', 'rule_title', 'rule_id', 'level', 'tags', 'enrichments', 'incident_id', 'risk_incident_id', 'state', 'max_level']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** OCSF attack entries of the `attack.*` tags: a technique and a tactic are separate entries. */
export function attacksOf(tags: readonly unknown[]): Json[] {
  const out: Json[] = [];
  for (const tag of tags) {
    if (typeof tag !== 'string' || !tag.toLowerCase().startsWith('attack.')) continue;
    const technique = TECHNIQUE.exec(tag);
    if (technique !== null) {
      out.push({ technique: { uid: (technique[1] as string).toUpperCase() }, version: 'v14' });
      continue;
    }
    const tactic = TACTICS[tag.slice('attack.'.length).toLowerCase().replaceAll('-', '_')];
    if (tactic !== undefined) out.push({ tactic: { uid: tactic[0], name: tactic[1] }, version: 'v14' });
  }
  return out;
}

function severityOf(level: unknown): Json {
  const found = typeof level === 'string' ? SEVERITIES[level.toLowerCase()] : undefined;
  return found === undefined ? { severity_id: 0, severity: 'Unknown' } : { severity_id: found[0], severity: found[1] };
}

/** What kind of line this is, and the finding's activity. */
function classify(line: Json): { readonly kind: string; readonly activity: keyof typeof ACTIVITIES } | undefined {
  if (line['risk_event'] === true) return undefined;
  const enrichments = isObject(line['enrichments']) ? line['enrichments'] : {};
  if (enrichments['dedup_state'] !== undefined) return undefined;
  if (typeof line['risk_incident_id'] === 'string') return { kind: 'risk_incident', activity: 'create' };
  if (typeof line['incident_id'] === 'string') {
    const trigger = line['trigger'];
    const activity = trigger === 'resolved' ? 'close' : trigger === 'group_wait' ? 'create' : 'update';
    return { kind: 'incident', activity };
  }
  return { kind: typeof line['correlation_type'] === 'string' ? 'correlation' : 'detection', activity: 'create' };
}

/** `risk.score` / `risk.objects` enrichments lifted into OCSF's risk fields (§4.2). */
function riskFields(enrichments: Json): Json {
  const out: Json = {};
  const score = enrichments['risk.score'];
  if (typeof score === 'number') out['risk_score'] = score;
  const objects = Array.isArray(enrichments['risk.objects']) ? enrichments['risk.objects'].filter(isObject) : [];
  if (objects.length > 0) {
    out['resources'] = objects.map((o) => ({ type: o['type'], name: o['value'] }));
    const user = objects.find((o) => o['type'] === 'user');
    if (user !== undefined) out['actor'] = { user: { name: user['value'] } };
  }
  return out;
}

function unmappedOf(line: Json, enrichments: Json): Json | undefined {
  const out: Json = {};
  for (const [key, value] of Object.entries(line)) if (!MAPPED.has(key)) out[key] = value;
  const rest = Object.fromEntries(Object.entries(enrichments).filter(([k]) => k !== 'risk.score' && k !== 'risk.objects'));
  if (Object.keys(rest).length > 0) out['enrichments'] = rest;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The Detection Finding of one native line, or `undefined` for lines that stay native. `timeMs` is
 * the finding time for results and alert incidents (the first delivery attempt); risk incidents use
 * their `window_end`.
 */
export function ocsfFinding(line: Json, timeMs: number, version: string): Json | undefined {
  const kind = classify(line);
  if (kind === undefined) return undefined;
  const [activityId, activityName] = ACTIVITIES[kind.activity];
  const enrichments = isObject(line['enrichments']) ? line['enrichments'] : {};
  const uid = String(line['result_id'] ?? line['incident_id'] ?? line['risk_incident_id'] ?? '');
  const title = kind.kind === 'risk_incident' ? `Risk incident: ${String(line['entity_type'])} ${String(line['entity_value'])}` : kind.kind === 'incident' ? `Incident ${String(line['incident_id'])}` : String(line['rule_title'] ?? '');
  const time = kind.kind === 'risk_incident' && typeof line['window_end'] === 'number' ? line['window_end'] * 1000 : timeMs;
  const tags = Array.isArray(line['tags']) ? line['tags'] : kind.kind === 'risk_incident' && Array.isArray(line['tactics']) ? line['tactics'].map((t) => `attack.${String(t)}`) : [];
  const attacks = attacksOf(tags);
  const analytic = typeof line['rule_id'] === 'string' || typeof line['rule_title'] === 'string' ? { analytic: { ...(typeof line['rule_id'] === 'string' ? { uid: line['rule_id'] } : {}), name: line['rule_title'], type_id: 1, type: 'Rule' } } : {};
  const unmapped = unmappedOf(line, enrichments);
  return {
    class_uid: 2004,
    class_name: 'Detection Finding',
    category_uid: 2,
    category_name: 'Findings',
    activity_id: activityId,
    activity_name: activityName,
    type_uid: 2004 * 100 + activityId,
    type_name: `Detection Finding: ${activityName}`,
    ...severityOf(line['level'] ?? line['max_level']),
    ...(kind.activity === 'close' ? { status_id: 4, status: 'Resolved' } : { status_id: 1, status: 'New' }),
    time,
    message: title,
    metadata: { version: '1.1.0', uid, product: { name: 'sigmad', vendor_name: 'sigmad', version } },
    finding_info: { uid, title, types: [kind.kind], ...analytic, ...(attacks.length > 0 ? { attacks } : {}) },
    ...riskFields(enrichments),
    ...(unmapped === undefined ? {} : { unmapped }),
  };
}

/**
 * The line an OCSF sink writes for one native NDJSON line. Lines that stay native (and anything not
 * a JSON object) pass through unchanged.
 */
export function ocsfLine(text: string, timeMs: number, version: string): string {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return text;
  }
  const finding = isObject(line) ? ocsfFinding(line, timeMs, version) : undefined;
  return finding === undefined ? text : JSON.stringify(finding);
}

/** `target` writing OCSF findings; a batch's findings share the clock time of its first delivery attempt. */
export function withOcsfFormat(target: SinkTarget, clock: Clock, version: string): SinkTarget {
  return withLineFormat(target, (texts) => {
    const now = clock.now();
    return texts.map((t) => ocsfLine(t, now, version));
  });
}
