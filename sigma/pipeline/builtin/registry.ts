// Built-in pipelines by the name users select them with.
import type { BuiltinPipeline } from './builtin-pipeline.js';
import { ecsWindows } from './ecs-windows.js';
import { evtxNested } from './evtx-nested.js';
import { sysmon } from './sysmon.js';
import { windowsAudit } from './windows-audit.js';

export const builtinPipelines: Readonly<Record<string, BuiltinPipeline>> = {
  sysmon,
  'windows-audit': windowsAudit,
  'ecs-windows': ecsWindows,
  'evtx-nested': evtxNested,
};
