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
