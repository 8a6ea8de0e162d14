// Windows built-in logs: service → Channel conditions, and categories with Security/PowerShell/Defender
// equivalents (process_creation → Security 4688 with NewProcessName/ParentProcessName, ...).
import type { BuiltinPipeline } from './builtin-pipeline.js';
import { eventCondition, windowsLogsource } from './builtin-pipeline.js';
import { AUDIT_CATEGORIES, SERVICE_CHANNELS } from './windows-channels.js';

// Service items run first, so a category rewritten to a service below is not given its channel twice.
const serviceItems = Object.entries(SERVICE_CHANNELS).map(([service, channels]) => ({
  id: `audit_service_${service}`,
  type: 'add_condition',
  conditions: { Channel: channels.length === 1 ? channels[0] : channels },
  rule_conditions: [{ type: 'logsource', product: 'windows', service }],
}));

const categoryItems = Object.entries(AUDIT_CATEGORIES).flatMap(([category, facts]) => [
  ...(facts.fieldMapping
    ? [{ id: `audit_${category}_fields`, type: 'field_name_mapping', mapping: facts.fieldMapping, rule_conditions: windowsLogsource(category) }]
    : []),
  eventCondition(`audit_${category}`, category, facts.eventIds, SERVICE_CHANNELS[facts.service] ?? []),
  { id: `audit_${category}_logsource`, type: 'change_logsource', product: 'windows', service: facts.service, rule_conditions: windowsLogsource(category) },
]);

export const windowsAudit: BuiltinPipeline = {
  name: 'windows-audit',
  description: 'Windows event logs without Sysmon: Channel per service, process_creation as Security 4688, PowerShell and Defender categories',
  data: { name: 'windows-audit', priority: 10, transformations: [...serviceItems, ...categoryItems] },
};
