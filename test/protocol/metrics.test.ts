import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { bindZeroed, createMetrics, DEFAULT_BUCKETS, METRICS, type MetricName } from '../../protocol/metrics.js';
import { section, tableRows } from './contract-tables.js';

interface ContractMetric {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
  /** Closed value lists given in the Labels cell, per label. */
  readonly values: Readonly<Record<string, readonly string[]>>;
}

/** Metric rows of the Endpoints section: name, type and the label names of the Labels cell. */
function contractMetrics(): ContractMetric[] {
  return tableRows(section('Endpoints'))
    .filter((r) => /^svc_[a-z_]+$/.test(r[0] ?? ''))
    .map(([name = '', type = '', labelsCell = '']) => {
      const values: Record<string, string[]> = {};
      for (const m of labelsCell.matchAll(/([a-z_]+) \(([^)]*)\)/g)) {
        // Only a parenthesis that is nothing but a list of values closes the label's value set.
        const inside = m[2] ?? '';
        if (!/^`[^`]+`(, `[^`]+`)*$/.test(inside)) continue;
        values[m[1] ?? ''] = [...inside.matchAll(/`([^`]+)`/g)].map((v) => v[1] ?? '');
      }
      const names = labelsCell
        .replace(/\([^)]*\)/g, '')
        .split(';')[0]
        ?.split(',')
        .map((s) => s.trim())
        .filter((s) => /^[a-z_]+$/.test(s));
      return { name, type, labels: names ?? [], values };
    });
}

const contract = contractMetrics();
/** Families no contract row fits that an issue asks for (issue 6: dropped correlation state). */
const BEYOND_CONTRACT = [
  'svc_correlation_state_dropped_total',
  // issue 18 (daemon-semantics §18.5-18.6)
  'svc_api_auth_failures_total',
  'svc_audit_records_total',
  'svc_audit_write_errors_total',
  // issue 21: cluster mode
  'svc_cluster_partitions_owned',
  'svc_cluster_partition_lag',
  'svc_cluster_takeovers_total',
  'svc_cluster_hits_published_total',
];

describe('metrics catalogue against the contract', () => {
  it('reads the metric tables', () => {
    expect(contract.length).toBeGreaterThan(80);
  });

  it.each(contract)('$name is declared with its type and labels', (m) => {
    const decl = (METRICS as Record<string, { type: string; labels: readonly string[]; values?: Record<string, readonly string[]> }>)[m.name];
    expect(decl).toBeDefined();
    expect(decl?.type).toBe(m.type);
    expect(decl?.labels).toEqual(m.labels);
    for (const [label, values] of Object.entries(m.values)) expect(decl?.values?.[label], label).toEqual(values);
  });

  it('declares nothing the contract does not list, beyond the families issues ask for', () => {
    const names = new Set([...contract.map((m) => m.name), ...BEYOND_CONTRACT]);
    expect(Object.keys(METRICS).filter((n) => !names.has(n))).toEqual([]);
  });

  it('uses the correlation type list for correlation_type', () => {
    expect(METRICS.svc_correlation_matches_by_rule_total.values.correlation_type).toHaveLength(8);
  });
});

describe('createMetrics', () => {
  it('renders unlabelled always-on families with zeros at the first scrape', async () => {
    const { registry } = createMetrics(new Registry());
    const text = await registry.metrics();
    expect(text).toMatch(/^svc_events_processed_total 0$/m);
    expect(text).toMatch(/^svc_tap_active_sessions 0$/m);
    expect(text).toMatch(/^svc_fields_observed_total 0$/m);
    expect(text).toContain('# TYPE svc_sink_queue_depth gauge');
    expect(text).not.toContain('svc_dedup_results_total');
    expect(text).not.toContain('svc_tls_certificate_expiry_seconds');
  });

  it('renders pre-registered label sets of enabled feature groups with zeros', async () => {
    const { registry } = createMetrics(new Registry(), { groups: ['alert_pipeline', 'risk'] });
    const text = await registry.metrics();
    for (const action of ['emitted', 'folded', 'repeat', 'resolved']) {
      expect(text).toContain(`svc_dedup_results_total{action="${action}"} 0`);
    }
    expect(text).toContain('svc_incident_overmerge_total{guard="cardinality_ceiling"} 0');
    expect(text).toContain('svc_risk_incidents_emitted_total{trigger="tactic_count"} 0');
    expect(text).not.toMatch(/^svc_inhibited_total\{/m);
  });

  it('gives typed handles that count into the registry, histograms with default buckets', async () => {
    const { registry, handles } = createMetrics(new Registry());
    handles.svc_detection_matches_by_rule_total.labels('Rule A', 'high').inc(2);
    handles.svc_batch_size.observe(3);
    const text = await registry.metrics();
    expect(text).toContain('svc_detection_matches_by_rule_total{rule_title="Rule A",level="high"} 2');
    for (const b of DEFAULT_BUCKETS) expect(text).toContain(`svc_batch_size_bucket{le="${b}"}`);
  });

  it('binds per-sink children at build that render at zero before first use', async () => {
    const { registry, handles } = createMetrics(new Registry());
    const retries = bindZeroed(handles.svc_sink_retries_total, { sink: 'file' });
    bindZeroed(handles.svc_sink_queue_depth, { sink: 'file' });
    bindZeroed(handles.svc_webhook_request_duration_seconds, { webhook_id: 'w' });
    expect(await registry.metrics()).toContain('svc_sink_retries_total{sink="file"} 0');
    retries.inc(2);
    const text = await registry.metrics();
    expect(text).toContain('svc_sink_retries_total{sink="file"} 2');
    expect(text).toContain('svc_sink_queue_depth{sink="file"} 0');
    expect(text).toContain('svc_webhook_request_duration_seconds_count{webhook_id="w"} 0');
  });

  it('sets scrape-time gauges from their functions at every scrape', async () => {
    let uptime = 1.5;
    const { registry } = createMetrics(new Registry(), { onScrape: { svc_uptime_seconds: () => uptime } });
    expect(await registry.metrics()).toMatch(/^svc_uptime_seconds 1.5$/m);
    uptime = 42;
    expect(await registry.metrics()).toMatch(/^svc_uptime_seconds 42$/m);
  });

  it('has one handle per catalogue entry', () => {
    const { handles } = createMetrics();
    expect(Object.keys(handles).sort()).toEqual((Object.keys(METRICS) as MetricName[]).sort());
  });
});
