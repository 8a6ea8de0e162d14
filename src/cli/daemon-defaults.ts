// What `npm start` (the daemon with no flags and no --config) runs with: the bundled rules, the sysmon
// pipeline with Windows logsource routing, HTTP input on loopback, the detection tail and a state
// directory under the cwd.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package's root (where package.json names `sigmad`), from this module's location. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'sigmad') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the sigmad package root');
    dir = up;
  }
}

/** Pseudo-path naming the bundled defaults in config error messages. */
export const BUNDLED_CONFIG_PATH = '<bundled defaults>';

export function bundledConfigYaml(): string {
  const rules = JSON.stringify(join(packageRoot(), 'rules'));
  return [
    'daemon:',
    `  rules: ${rules}`,
    '  pipelines: [sysmon]',
    '  api:',
    '    addr: 127.0.0.1:9090',
    '  input:',
    '    source: http',
    // The bundled profile is Windows/Sysmon: rules of other products (e.g. Zeek's `not selection`
    // rules) would otherwise fire on every event that lacks their fields.
    '  logsource_routing:',
    '    enabled: true',
    '    event_logsource: {product: windows}',
    '  tail:',
    '    enabled: true',
    '  state:',
    '    db: ./data',
    '',
  ].join('\n');
}
