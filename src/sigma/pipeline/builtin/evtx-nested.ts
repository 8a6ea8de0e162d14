// Raw evtx_dump JSON without flattening: System fields under `Event.System`, the rest under
// `Event.EventData`. Mapping comes before prefixing, and the prefix skips names already under `Event.`
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

export const evtxNested: BuiltinPipeline = {
  name: 'evtx-nested',
  description: 'evtx_dump JSON as is: Event.System.<Field> for system fields, Event.EventData.<Field> for the rest',
  data: {
    name: 'evtx-nested',
    priority: 20,
    transformations: [
      { id: 'evtx_system_fields', type: 'field_name_mapping', mapping: SYSTEM_FIELDS },
      {
        id: 'evtx_event_data',
        type: 'field_name_prefix',
        prefix: 'Event.EventData.',
        field_name_conditions: [{ type: 'exclude_fields', mode: 're', fields: ['Event\\.'] }],
      },
    ],
  },
};
