// The built-in schema signatures (daemon-semantics §13.2), as a user would write them in
// `--schema-config`, plus what a signature routes as. `generic_json` is the classifier's catch-all.
import type { SchemaSignature, SignaturePredicate } from '../../protocol/index.js';

export interface BuiltinSignature extends SchemaSignature {
  readonly specificity: number;
  /** The schema name schema routing binds (the ECS specialisations route as `ecs`). */
  readonly routesAs?: string;
}

const present = (...fields: string[]): SignaturePredicate[] => fields.map((f) => ({ field_present: f }));
const eq = (field: string, value: string): SignaturePredicate => ({ equals: { field, value } });
const SUBSCRIPTION_ID: SignaturePredicate = { matches: { field: 'id', value: '(?i)^/subscriptions/' } };

export const GENERIC_JSON = 'generic_json';

export const BUILTIN_SIGNATURES: readonly BuiltinSignature[] = [
  {
    name: 'ecs_windows',
    specificity: 105,
    routesAs: 'ecs',
    match: [...present('ecs.version'), { any: [...present('winlog.channel', 'winlog.event_id'), eq('host.os.type', 'windows'), eq('os.type', 'windows')] }],
  },
  {
    name: 'ecs_linux',
    specificity: 105,
    routesAs: 'ecs',
    match: [...present('ecs.version'), { any: [eq('host.os.type', 'linux'), eq('os.type', 'linux'), ...present('host.os.kernel')] }],
  },
  { name: 'ecs', specificity: 100, match: present('ecs.version') },
  { name: 'ocsf', specificity: 95, match: present('class_uid', 'metadata.version') },
  { name: 'gcp_audit', specificity: 95, match: [eq('protoPayload.@type', 'type.googleapis.com/google.cloud.audit.AuditLog')] },
  { name: 'k8s_audit', specificity: 92, match: [eq('kind', 'Event'), { matches: { field: 'apiVersion', value: '^audit\\.k8s\\.io/' } }, ...present('auditID')] },
  { name: 'github_audit', specificity: 92, match: [...present('action', 'actor'), { any_of: ['org', 'repo'] }, { any_of: ['created_at', '_document_id'] }] },
  { name: 'windows_eventlog', specificity: 90, match: [{ any_of: ['Event.System.EventID', 'Event.System.Provider'] }] },
  {
    name: 'azure_activitylogs',
    specificity: 90,
    match: [{ in: { field: 'category', values: ['Administrative', 'Policy', 'Security'] } }, SUBSCRIPTION_ID, ...present('operationName')],
  },
  { name: 'azure_auditlogs', specificity: 90, match: [eq('category', 'AuditLogs'), ...present('properties.activityDisplayName')] },
  { name: 'azure_signinlogs', specificity: 90, match: [eq('category', 'SignInLogs'), ...present('properties.userDisplayName')] },
  { name: 'sysmon', specificity: 88, match: [eq('Channel', 'Microsoft-Windows-Sysmon/Operational')] },
  { name: 'sysmon', specificity: 88, match: [eq('Provider_Name', 'Microsoft-Windows-Sysmon')] },
  { name: 'sysmon', specificity: 80, match: [...present('EventID', 'ProcessGuid'), { any_of: ['Image', 'CommandLine'] }] },
  { name: 'okta_system_log', specificity: 88, match: present('eventType', 'actor', 'published', 'outcome') },
  { name: 'm365_audit', specificity: 88, match: present('RecordType', 'Operation', 'CreationTime', 'Workload') },
  { name: 'cef', specificity: 85, match: present('deviceVendor', 'deviceProduct', 'signatureId') },
  { name: 'aws_cloudtrail', specificity: 85, match: present('eventVersion', 'eventSource', 'eventID', 'userIdentity') },
  { name: 'onelogin_events', specificity: 85, match: [...present('event_type_id', 'account_id'), { any_of: ['user_id', 'actor_user_id'] }] },
  { name: 'aws_vpcflow', specificity: 80, match: [...present('srcaddr', 'dstaddr'), { in: { field: 'action', values: ['ACCEPT', 'REJECT'] } }] },
  {
    name: 'osquery_result',
    specificity: 75,
    match: [...present('name'), { in: { field: 'action', values: ['added', 'removed', 'snapshot'] } }, { any_of: ['columns', 'snapshot'] }, ...present('hostIdentifier')],
  },
  { name: 'docker_events', specificity: 70, match: present('Type', 'Action', 'Actor') },
  { name: 'azure', specificity: 65, match: [SUBSCRIPTION_ID] },
];
