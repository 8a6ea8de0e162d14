import type { Logger } from 'pino';
import { AlertConfigError } from '../actors/index.js';
import type { MetricHandles } from '../protocol/index.js';

/**
 * Re-reads a watched config file for a reload: undefined when it no longer loads (the caller keeps
 * the old one), counted in `svc_reloads_failed_total` and logged with `what` failed.
 */
export async function rereadConfig<T>(read: () => Promise<T>, what: string, metrics: MetricHandles, log: Logger): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof AlertConfigError)) throw error;
    metrics.svc_reloads_failed_total.inc();
    log.error({ reason: error.message }, `${what} reload failed; the previous one keeps running`);
    return undefined;
  }
}

/**
 * A reload of a watched config file: re-reads it (`rereadConfig`: false when it no longer loads, the
 * old one kept), puts it in force with `apply` and logs `<what> reloaded` with the fields `apply` returns.
 */
export async function reloadConfig<T>(read: () => Promise<T>, what: string, metrics: MetricHandles, log: Logger, apply: (config: T) => Promise<object | void>): Promise<boolean> {
  const config = await rereadConfig(read, what, metrics, log);
  if (config === undefined) return false;
  log.info((await apply(config)) ?? {}, `${what} reloaded`);
  return true;
}
