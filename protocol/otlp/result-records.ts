// Results as OTLP log records for the OTLP sinks (daemon-semantics §4.2): one record per result line.
import { exportLogsRequestType } from './logs-proto.js';

const SEVERITIES: Readonly<Record<string, readonly [number, string]>> = {
  critical: [21, 'FATAL'],
  high: [17, 'ERROR'],
  medium: [13, 'WARN'],
  low: [9, 'INFO'],
  informational: [5, 'DEBUG'],
};

/** JSON → AnyValue: integers stay ints, other numbers doubles, null an empty value. */
function anyValueOf(value: unknown): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { intValue: value } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValueOf) } };
  return { kvlistValue: { values: keyValues(value as Record<string, unknown>) } };
}

function keyValues(object: Record<string, unknown>): Record<string, unknown>[] {
  return Object.entries(object).map(([key, value]) => ({ key, value: anyValueOf(value) }));
}

/**
 * An `ExportLogsServiceRequest` (protobuf) for result lines: resource `service.name=svc`, scope `svc`
 * at `version`, time = `nowNanos`, severity from `level`, body = rule title, attributes = every
 * top-level key. A line that is not a JSON object (a raw DLQ line) becomes a record whose body is it.
 */
export function resultsExportRequest(lines: readonly string[], nowNanos: bigint, version: string): Uint8Array {
  const time = nowNanos.toString();
  const logRecords = lines.map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { timeUnixNano: time, observedTimeUnixNano: time, body: { stringValue: line } };
    const result = parsed as Record<string, unknown>;
    const [severityNumber, severityText] = SEVERITIES[String(result['level'])] ?? [0, ''];
    return {
      timeUnixNano: time,
      observedTimeUnixNano: time,
      severityNumber,
      severityText,
      body: { stringValue: typeof result['rule_title'] === 'string' ? result['rule_title'] : '' },
      attributes: keyValues(result),
    };
  });
  const request = {
    resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] }, scopeLogs: [{ scope: { name: 'svc', version }, logRecords }] }],
  };
  return exportLogsRequestType().encode(exportLogsRequestType().fromObject(request)).finish();
}
