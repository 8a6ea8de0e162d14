import type { DaemonConfig, MetricGroup } from '../protocol/index.js';

/** The optional metric groups a daemon with this configuration registers (TLS is decided by the listener). */
export function daemonMetricGroups(config: DaemonConfig, tls = false): Exclude<MetricGroup, 'always'>[] {
  return [
    'alert_pipeline',
    'otlp',
    ...(tls ? (['tls'] as const) : []),
    ...(config.risk !== undefined ? (['risk'] as const) : []),
    ...(config.enrichers !== undefined ? (['enrichment'] as const) : []),
    ...(config.dispositions.enabled || config.dispositions.source !== undefined ? (['dispositions'] as const) : []),
    ...(config.sources.length > 0 ? (['sources'] as const) : []),
    ...(config.cluster.url !== undefined ? (['cluster'] as const) : []),
  ];
}
