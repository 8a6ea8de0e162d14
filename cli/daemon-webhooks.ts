// The daemon's webhooks: loaded before the state store opens (their watermarks are sinks of the
// outbox), then one sink worker each with the webhook's own queue, retries and backoff (§12.2).
import type { DaemonConfig } from '../protocol/index.js';
import type { CrashHook, StateStore } from '../state/index.js';
import { createWebhookSink, SinkWorker, webhookSinkName } from '../streams/index.js';
import type { DlqWriter, SinkQueueDepths, StageContext } from '../streams/index.js';
import { settingName } from './config.js';
import { loadWebhooks, WebhookConfigError } from './webhook-files.js';
import type { LoadedWebhook } from './webhook-files.js';

/** Loads `daemon.output.webhooks`; a config error becomes a message naming the setting (exit 3). */
export async function loadDaemonWebhooks(config: DaemonConfig, env: Readonly<Record<string, string | undefined>>): Promise<LoadedWebhook[]> {
  try {
    return await loadWebhooks(config.output.webhooks, config.engine.egress_policy, env);
  } catch (error) {
    if (error instanceof WebhookConfigError) throw new WebhookConfigError(`${settingName('output.webhooks')}: ${error.message}`);
    throw error;
  }
}

export function webhookSinkNames(webhooks: readonly LoadedWebhook[]): string[] {
  return webhooks.map((w) => webhookSinkName(w.webhook.id));
}

/** One sink worker per webhook: batch size 1, the webhook's retry settings. */
export function webhookWorkers(webhooks: readonly LoadedWebhook[], ctx: StageContext, store: StateStore, dlq: DlqWriter, crash: CrashHook, depths: SinkQueueDepths): SinkWorker[] {
  return webhooks.map(({ webhook, delivery }) => new SinkWorker(createWebhookSink(webhook, ctx, store), store, ctx, { ...delivery, batchMax: 1 }, dlq, crash, depths));
}
