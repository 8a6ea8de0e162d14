// A built-in pipeline is pySigma pipeline data (the same shape as a YAML file), so it goes through the
// same parser and validation as user pipelines.
export interface BuiltinPipeline {
  readonly name: string;
  readonly description: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export function windowsLogsource(category: string): readonly Readonly<Record<string, string>>[] {
  return [{ type: 'logsource', product: 'windows', category }];
}

/** An item that adds `EventID`(s) and `Channel` conditions to one category's rules. */
export function eventCondition(
  id: string,
  category: string,
  eventIds: readonly number[],
  channels: readonly string[],
  fields: { readonly eventId: string; readonly channel: string } = { eventId: 'EventID', channel: 'Channel' },
): Readonly<Record<string, unknown>> {
  return {
    id,
    type: 'add_condition',
    conditions: {
      [fields.eventId]: eventIds.length === 1 ? eventIds[0] : eventIds,
      [fields.channel]: channels.length === 1 ? channels[0] : channels,
    },
    rule_conditions: windowsLogsource(category),
  };
}
