// Raw evtx_dump JSON without flattening: System fields under `Event.System`, the rest under
// `Event.EventData` (or `Event.UserData.<element>` for WMI activity). Mapping comes before prefixing, and the prefix skips names already under `Event.`
// (sigma-semantics.md §8.6).
import type { BuiltinPipeline } from './builtin-pipeline.js';

const SYSTEM_FIELDS: Readonly<Record<string, string>> = {
  EventID: 'Event.System.EventID',
  Channel: 'Event.System.Channel',
  Computer: 'Event.System.Computer',
  Provider_Name: 'Event.System.Provider.#attributes.Name',
  Level: 'Event.System.Level',
  Task: 'Event.System.Task',
  Keywords: 'Event.System.Keywords',
  EventRecordID: 'Event.System.EventRecordID',
  TimeCreated: 'Event.System.TimeCreated.#attributes.SystemTime',
};

// Windows Defender names its EventData fields with spaces (`Threat Name`); rules drop the spaces.
const DEFENDER_SPACED = [
  'Product Name', 'Product Version', 'Detection ID', 'Detection Time', 'Threat ID', 'Threat Name', 'Severity ID',
  'Severity Name', 'Category ID', 'Category Name', 'Status Code', 'Status Description', 'Source ID', 'Source Name',
  'Process Name', 'Detection User', 'Origin ID', 'Origin Name', 'Execution ID', 'Execution Name', 'Type ID', 'Type Name',
  'Pre Execution Status', 'Action ID', 'Action Name', 'Error Code', 'Error Description', 'Post Clean Status',
  'Additional Actions ID', 'Additional Actions String', 'Remediation User', 'Security intelligence Version',
  'Engine Version', 'Old Value', 'New Value',
];
const DEFENDER_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(
  DEFENDER_SPACED.map((name) => [name.replaceAll(' ', ''), `Event.EventData.${name}`]),
);

// WMI-Activity events (5857–5861) keep their data under `Event.UserData.<element>`, one element per event id.
const WMI_ELEMENTS = ['Operation_StartedOperational', 'Operation_ClientFailure', 'Operation_EssStarted', 'Operation_TemporaryEssStarted', 'Operation_ESStoConsumerBinding'];
const WMI_DATA = ['Operation', 'User', 'ClientMachine', 'ClientProcessId', 'Component', 'ResultCode', 'PossibleCause', 'Provider', 'Query', 'Consumer', 'Namespace', 'ESS', 'CONSUMER', 'ProviderName', 'ProviderGuid', 'Code', 'HostProcess', 'ProcessID'];
const WMI_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  WMI_DATA.map((f) => [f, WMI_ELEMENTS.map((e) => `Event.UserData.${e}.${f}`)]),
);

export const evtxNested: BuiltinPipeline = {
  name: 'evtx-nested',
  description: 'evtx_dump JSON as is: Event.System.<Field> for system fields, Event.EventData.<Field> (Defender names with spaces, WMI activity under Event.UserData) for the rest',
  data: {
    name: 'evtx-nested',
    priority: 20,
    transformations: [
      { id: 'evtx_system_fields', type: 'field_name_mapping', mapping: SYSTEM_FIELDS },
      {
        id: 'evtx_defender_fields',
        type: 'field_name_mapping',
        mapping: DEFENDER_FIELDS,
        rule_conditions: [{ type: 'logsource', service: 'windefend' }],
      },
      {
        id: 'evtx_wmi_user_data',
        type: 'field_name_mapping',
        mapping: WMI_FIELDS,
        rule_conditions: [{ type: 'logsource', service: 'wmi' }],
      },
      {
        id: 'evtx_event_data',
        type: 'field_name_prefix',
        prefix: 'Event.EventData.',
        field_name_conditions: [{ type: 'exclude_fields', mode: 're', fields: ['Event\\.'] }],
      },
    ],
  },
};
