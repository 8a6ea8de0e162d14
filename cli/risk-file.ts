import { compileRiskConfig } from '../actors/index.js';
import { RiskFileSchema } from '../protocol/index.js';
import type { RiskFile } from '../protocol/index.js';
import { parseStrictConfig, readConfigText } from './alert-pipeline-file.js';

/** Reads and checks a risk config file (§8.1); throws AlertConfigError naming the file and the key. */
export async function readRiskFile(path: string): Promise<RiskFile> {
  return parseStrictConfig(RiskFileSchema, await readConfigText(path), path, compileRiskConfig);
}
