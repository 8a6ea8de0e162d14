// The `--schema-config` file (daemon-semantics §13.2, §13.5): checked strictly like the other config
// files, its signatures compiled once (a regex that does not compile is an error naming the file).
import { SchemaConfigFile } from '../protocol/index.js';
import { PredicateError, SchemaClassifier } from '../sigma/index.js';
import { parseStrictConfig, readConfigText } from './alert-pipeline-file.js';

export interface SchemaConfig {
  readonly file: SchemaConfigFile;
  /** Built-ins plus the file's signatures. */
  readonly classifier: SchemaClassifier;
}

/** Parses the file's text. Throws an Error naming the file and the key. */
export function parseSchemaConfig(text: string, path: string): SchemaConfig {
  const file = parseStrictConfig(SchemaConfigFile, text, path, () => undefined);
  try {
    return { file, classifier: new SchemaClassifier(file.schemas ?? []) };
  } catch (error) {
    if (error instanceof PredicateError) throw new Error(`${path}: ${error.message}`);
    throw error;
  }
}

export async function readSchemaConfig(path: string): Promise<SchemaConfig> {
  return parseSchemaConfig(await readConfigText(path), path);
}
