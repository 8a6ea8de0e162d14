// Winlogbeat/ECS field names for Windows rules. Fields with an ECS equivalent are renamed; every other
// field is looked up under `winlog.event_data.`. Combine with `sysmon` or `windows-audit`, which add the
// EventID/Channel conditions this pipeline then renames.
import type { BuiltinPipeline } from './builtin-pipeline.js';

const ECS_FIELDS: Readonly<Record<string, string>> = {
  EventID: 'winlog.event_id',
  Channel: 'winlog.channel',
  Provider_Name: 'winlog.provider_name',
  Computer: 'winlog.computer_name',
  ComputerName: 'winlog.computer_name',
  Image: 'process.executable',
  ProcessId: 'process.pid',
  ProcessGuid: 'process.entity_id',
  CommandLine: 'process.command_line',
  CurrentDirectory: 'process.working_directory',
  OriginalFileName: 'process.pe.original_file_name',
  Description: 'process.pe.description',
  Product: 'process.pe.product',
  Company: 'process.pe.company',
  FileVersion: 'process.pe.file_version',
  ParentImage: 'process.parent.executable',
  ParentProcessId: 'process.parent.pid',
  ParentProcessGuid: 'process.parent.entity_id',
  ParentCommandLine: 'process.parent.command_line',
  User: 'user.name',
  TargetFilename: 'file.path',
  ImageLoaded: 'file.path',
  Signed: 'file.code_signature.signed',
  Signature: 'file.code_signature.subject_name',
  SignatureStatus: 'file.code_signature.status',
  DestinationIp: 'destination.ip',
  DestinationPort: 'destination.port',
  DestinationHostname: 'destination.domain',
  SourceIp: 'source.ip',
  SourcePort: 'source.port',
  SourceHostname: 'source.domain',
  Protocol: 'network.transport',
  QueryName: 'dns.question.name',
  TargetObject: 'registry.path',
  Details: 'registry.data.strings',
  PipeName: 'file.name',
  NewProcessName: 'process.executable',
  ParentProcessName: 'process.parent.executable',
};

export const ecsWindows: BuiltinPipeline = {
  name: 'ecs-windows',
  description: 'Winlogbeat/ECS field names (process.executable, winlog.event_id, ...) for Windows rules; other fields under winlog.event_data',
  data: {
    name: 'ecs-windows',
    priority: 20,
    transformations: [
      { id: 'ecs_windows_fields', type: 'field_name_mapping', mapping: ECS_FIELDS, rule_conditions: [{ type: 'logsource', product: 'windows' }] },
      {
        id: 'ecs_windows_event_data',
        type: 'field_name_prefix',
        prefix: 'winlog.event_data.',
        rule_conditions: [{ type: 'logsource', product: 'windows' }],
        field_name_conditions: [{ type: 'processing_item_applied', processing_item_id: 'ecs_windows_fields' }],
        field_name_cond_not: true,
      },
    ],
  },
};
