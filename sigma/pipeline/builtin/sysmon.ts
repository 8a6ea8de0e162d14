// Generic Windows categories → Sysmon event ids and channel; the logsource becomes service sysmon.
import type { BuiltinPipeline } from './builtin-pipeline.js';
import { eventCondition } from './builtin-pipeline.js';
import { SYSMON_CATEGORIES, SYSMON_CHANNEL } from './windows-channels.js';

const ids = Object.keys(SYSMON_CATEGORIES).map((category) => `sysmon_${category}`);

export const sysmon: BuiltinPipeline = {
  name: 'sysmon',
  description: 'Windows categories (process_creation, image_load, ...) as Sysmon events: EventID and Channel conditions, logsource service sysmon',
  data: {
    name: 'sysmon',
    priority: 10,
    transformations: [
      ...Object.entries(SYSMON_CATEGORIES).map(([category, eventIds]) =>
        eventCondition(`sysmon_${category}`, category, eventIds, [SYSMON_CHANNEL]),
      ),
      {
        id: 'sysmon_logsource',
        type: 'change_logsource',
        product: 'windows',
        service: 'sysmon',
        rule_conditions: ids.map((id) => ({ type: 'processing_item_applied', processing_item_id: id })),
        rule_cond_op: 'or',
      },
    ],
  },
};
