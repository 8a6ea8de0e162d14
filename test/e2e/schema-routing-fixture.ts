// The schema-routing setup the routing e2e tests share: an ECS field-mapping pipeline bound to `ecs`
// (with an implied windows logsource) and used as the default set, `sysmon` bound to no pipeline, and
// a user signature `acme_proc` aliased to `sysmon`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ECS_PIPELINE = 'name: ecs-fields\npriority: 10\ntransformations:\n  - type: field_name_mapping\n    mapping: {CommandLine: process.command_line}\n';

/** Writes the pipeline and the schema config into `dir`; `extra` goes first into the routing block. */
export function writeRoutingConfig(dir: string, extra = ''): { pipeline: string; config: string } {
  const pipeline = join(dir, 'ecs.yml');
  writeFileSync(pipeline, ECS_PIPELINE);
  const config = join(dir, 'schemas.yaml');
  writeFileSync(
    config,
    'schemas:\n  - {name: acme_proc, match: [{field_present: acme.tenant}]}\n' +
      `routing:\n${extra}  default_pipelines: [${pipeline}]\n  bindings:\n    - {schema: sysmon, pipelines: []}\n    - {schema: ecs, pipelines: [${pipeline}], logsource: {product: windows}}\n  aliases: {acme_proc: sysmon}\n`,
  );
  return { pipeline, config };
}
