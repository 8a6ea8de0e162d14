// Where results and dead letters go, built from the resolved specs: the DLQ writer (with the decoder
// that feeds it) and one delivery worker per sink, each opened once so a bad path fails start-up.
import { appendFile, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CrashHook, StateStore } from '../state/index.js';
import { createDecoder, createDlqWriter, createFileSink, createOtlpSink, createStdoutSink, createUnixSink, SinkQueueDepths, SinkWorker } from '../streams/index.js';
import type { SinkSpec, SinkTarget } from '../streams/index.js';
import type { Decoder, DlqWriter, LineWritable, StageContext } from '../streams/index.js';
import { settingName } from './config.js';
import type { DaemonSettings } from './daemon-settings.js';

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
  await mkdir(dirname(path), { recursive: true });
  await (await open(path, 'a')).close();
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function openOutputs(settings: DaemonSettings, ctx: StageContext, store: StateStore, crash: CrashHook, stdout: LineWritable): Promise<Outputs> {
  const { capacity, dlq: dlqSpec } = settings;
  const dlqPath = dlqSpec?.path;
  if (dlqPath !== undefined) {
    await prepareAppendFile(dlqPath).catch((error: unknown) => {
      throw new OutputError(`${settingName('output.dlq')} ${dlqSpec?.uri ?? ''}: ${message(error)}`);
    });
  }
  const dlq = createDlqWriter(ctx, dlqPath === undefined ? undefined : (text) => appendFile(dlqPath, text), capacity, dlqSpec?.onFull);
  const decoder = createDecoder({ format: settings.detect.format, syslog_tz_minutes: settings.detect.syslogTzMinutes }, ctx, dlqPath === undefined ? undefined : dlq);
  const depths = new SinkQueueDepths(ctx.metrics.svc_output_queue_depth, ctx.metrics.svc_sink_queue_depth);
  const delivery = { capacity, batchMax: settings.batchSize, ...settings.delivery };
  const sinks: SinkWorker[] = [];
  const close = async (): Promise<void> => {
    await dlq.flush();
    for (const w of sinks) await w.target.close();
  };
  for (const spec of settings.sinks) {
    const target = sinkTarget(spec, ctx, store, stdout);
    const worker = new SinkWorker(target, store, ctx, delivery, dlq, crash, depths);
    try {
      await target.start();
    } catch (error) {
      await close();
      throw new OutputError(`${settingName('output.sinks')} ${spec.uri}: ${message(error)}`);
    }
    sinks.push(worker);
  }
  return { dlq, decoder, sinks, close };
}

function sinkTarget(spec: SinkSpec, ctx: StageContext, store: StateStore, stdout: LineWritable): SinkTarget {
  switch (spec.kind) {
    case 'file':
      return createFileSink({ path: spec.path ?? '', on_full: spec.onFull }, ctx, store);
    case 'unix':
      return createUnixSink({ path: spec.path ?? '', on_full: spec.onFull }, ctx);
    case 'otlp':
      return createOtlpSink({ ...(spec.otlp ?? { transport: 'grpc', tls: false, endpoint: '' }), on_full: spec.onFull, version: SIGMAD_VERSION }, ctx);
    case 'stdout':
      return createStdoutSink({ on_full: spec.onFull }, ctx, stdout);
  }
}
