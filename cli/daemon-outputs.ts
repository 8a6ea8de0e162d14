// Where results and dead letters go, built from the resolved specs: the DLQ writer (with the decoder
// that feeds it) and one delivery worker per sink, each opened once so a bad path fails start-up.
import { appendFile, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CrashHook, StateStore } from '../state/index.js';
import { createDecoder, createDlqWriter, createFileSink, makeDirectory, createNatsSink, createOtlpSink, createStdoutSink, createUnixSink, openNatsDlq, prettyLines, withLineFormat, withOcsfFormat, SinkQueueDepths, SinkWorker } from '../streams/index.js';
import type { AppendLines, Decoder, DlqWriter, LineWritable, SinkTarget, StageContext } from '../streams/index.js';
import type { OutputSpec } from './daemon-settings.js';
import { settingName } from './config.js';
import type { DaemonSettings } from './daemon-settings.js';
import { webhookWorkers } from './daemon-webhooks.js';
import type { LoadedWebhook } from './webhook-files.js';

/** Scope version of OTLP sink records: the daemon's (`sigmad --version`). */
const SIGMAD_VERSION = '0.1.0';

export interface Outputs {
  readonly dlq: DlqWriter;
  readonly decoder: Decoder;
  readonly sinks: readonly SinkWorker[];
  /** Flush the DLQ and close every sink. */
  close(): Promise<void>;
}

/** A sink or the DLQ could not be opened: the message names its setting and URL (exit 3). */
export class OutputError extends Error {
  override readonly name = 'OutputError';
}

/** The directory made and the file opened for appending once, so a bad path fails start-up, not the first write. */
async function prepareAppendFile(path: string): Promise<void> {
  makeDirectory(dirname(path));
  await (await open(path, 'a')).close();
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Where dead letters are appended: a file, or a NATS subject. */
async function openDlqTarget(spec: OutputSpec, settings: DaemonSettings): Promise<{ append: AppendLines; close(): Promise<void> }> {
  if (spec.kind === 'nats') return openNatsDlq(spec.url ?? '', settings.nats);
  const path = spec.path ?? '';
  await prepareAppendFile(path);
  return { append: (text) => appendFile(path, text), close: () => Promise.resolve() };
}

function sinkTarget(spec: OutputSpec, settings: DaemonSettings, ctx: StageContext, store: StateStore, stdout: LineWritable): SinkTarget {
  switch (spec.kind) {
    case 'file':
      return createFileSink({ path: spec.path ?? '', on_full: spec.onFull }, ctx, store);
    case 'unix':
      return createUnixSink({ path: spec.path ?? '', on_full: spec.onFull }, ctx);
    case 'nats':
      return createNatsSink({ url: spec.url ?? '', on_full: spec.onFull }, ctx, settings.nats);
    case 'otlp':
      return createOtlpSink({ ...(spec.otlp ?? { transport: 'grpc', tls: false, endpoint: '' }), on_full: spec.onFull, version: SIGMAD_VERSION }, ctx);
    case 'stdout':
      return createStdoutSink({ on_full: spec.onFull }, ctx, stdout);
  }
}

export async function openOutputs(settings: DaemonSettings, ctx: StageContext, store: StateStore, crash: CrashHook, stdout: LineWritable, webhooks: readonly LoadedWebhook[] = []): Promise<Outputs> {
  const { capacity, dlq: dlqSpec } = settings;
  const dlqTarget = dlqSpec === undefined ? undefined : await openDlqTarget(dlqSpec, settings).catch((error: unknown) => {
    throw new OutputError(`${settingName('output.dlq')} ${dlqSpec.uri}: ${message(error)}`);
  });
  const dlq = createDlqWriter(ctx, dlqTarget?.append, capacity, dlqSpec?.onFull);
  const decoder = createDecoder({ format: settings.detect.format, syslog_tz_minutes: settings.detect.syslogTzMinutes }, ctx, dlqTarget === undefined ? undefined : dlq);
  const depths = new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth);
  const delivery = { capacity, batchMax: settings.batchSize, ...settings.delivery };
  const sinks: SinkWorker[] = [];
  const close = async (): Promise<void> => {
    await dlq.flush();
    await dlqTarget?.close();
    for (const w of sinks) await w.target.close();
  };
  for (const spec of settings.sinks) {
    const native = sinkTarget(spec, settings, ctx, store, stdout);
    const formatted = spec.format === 'ocsf' ? withOcsfFormat(native, ctx.clock, SIGMAD_VERSION) : native;
    const target = spec.kind === 'stdout' && settings.prettyStdout ? withLineFormat(formatted, prettyLines) : formatted;
    const worker = new SinkWorker(target, store, ctx, delivery, dlq, crash, depths);
    try {
      await target.start();
    } catch (error) {
      await close();
      throw new OutputError(`${settingName('output.sinks')} ${spec.uri}: ${message(error)}`);
    }
    sinks.push(worker);
  }
  sinks.push(...webhookWorkers(webhooks, ctx, store, dlq, crash, depths));
  return { dlq, decoder, sinks, close };
}

