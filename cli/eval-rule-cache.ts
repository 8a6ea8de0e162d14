// Where `sigmad eval` keeps its compiled-rule cache (issue 19 §3): a per-user directory, so that a second
// run over the same rules reads them instead of compiling, and workers start from the same entry.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * `--rule-cache DIR|off`; by default `$XDG_CACHE_HOME/sigmad/rule-cache`, or `~/.cache/sigmad/rule-cache`
 * when XDG_CACHE_HOME is unset or relative (as the XDG base directory spec says to ignore it then).
 */
export function evalRuleCacheDir(setting: string | undefined, env: NodeJS.ProcessEnv = process.env, home = homedir()): string | undefined {
  if (setting === 'off') return undefined;
  if (setting !== undefined && setting !== '') return setting;
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'sigmad', 'rule-cache');
}
