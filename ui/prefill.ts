// "Silence this rule on this host for 1h" and "mark this": the routes that open the Silences and
// Triage views with their forms filled from a detection or an incident.

/** Field names that usually carry the host an event came from (Sysmon/Windows, ECS, syslog). */
const HOST_FIELDS = ['computer', 'computername', 'hostname', 'host', 'host.name', 'host.hostname', 'workstationname', 'devicename', 'dvc_host'];

function isHostField(path: string): boolean {
  return HOST_FIELDS.includes(path.toLowerCase());
}

export interface HostMatch {
  /** An alert-pipeline selector (`match.Computer`, `event.host.name`). */
  readonly selector: string;
  readonly value: string;
}

/** The host of a detection: a matched field first, else a top-level or `host.name` field of the included event. */
export function hostOfDetection(result: Readonly<Record<string, unknown>>): HostMatch | undefined {
  const fields = Array.isArray(result['matched_fields']) ? (result['matched_fields'] as unknown[]) : [];
  for (const f of fields) {
    const { field, value } = (f ?? {}) as { field?: unknown; value?: unknown };
    if (typeof field === 'string' && isHostField(field) && typeof value === 'string') return { selector: `match.${field}`, value };
  }
  const event = result['event'];
  if (typeof event !== 'object' || event === null) return undefined;
  for (const [k, v] of Object.entries(event)) {
    if (isHostField(k) && typeof v === 'string') return { selector: `event.${k}`, value: v };
    if (k.toLowerCase() === 'host' && typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string') {
      return { selector: `event.${k}.name`, value: (v as { name: string }).name };
    }
  }
  return undefined;
}

/** The host of an incident: a `group_by` selector whose last segment names a host field. */
export function hostOfIncident(groupBy: unknown): HostMatch | undefined {
  if (typeof groupBy !== 'object' || groupBy === null) return undefined;
  for (const [selector, value] of Object.entries(groupBy)) {
    const last = selector.slice(selector.indexOf('.') + 1);
    if (typeof value === 'string' && isHostField(last)) return { selector, value };
  }
  return undefined;
}

/** The rule as the alert pipeline's `rule` selector and the dispositions see it: its id, else its title. */
export function ruleKey(result: Readonly<Record<string, unknown>>): string {
  const id = result['rule_id'];
  return typeof id === 'string' && id !== '' ? id : String(result['rule_title'] ?? '');
}

export function silenceRoute(rule: string, host: HostMatch | undefined, label: string): string {
  const q = new URLSearchParams({ rule, for: '1h', comment: label });
  if (host !== undefined) {
    q.set('selector', host.selector);
    q.set('value', host.value);
  }
  return `#/silences?${q}`;
}

export function triageRoute(params: Readonly<Record<string, string>>): string {
  return `#/triage?${new URLSearchParams(params)}`;
}
