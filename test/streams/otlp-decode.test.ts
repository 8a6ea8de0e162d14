// The OTLP decoding thread (the compiled worker from dist/): every export gets exactly the answer
// decoding it in place gives, also when the thread cannot start or is closed with exports in flight.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExportLogsServiceRequestType } from '../../protocol/index.js';
import { createOtlpDecoder, decodeInPlace } from '../../streams/index.js';
import type { OtlpDecoder } from '../../streams/index.js';
import { ensureBuilt, ROOT } from '../e2e/harness.js';

beforeAll(ensureBuilt, 180_000);

const SCRIPT = pathToFileURL(join(ROOT, 'dist/streams/sources/otlp-decode-worker.js'));

/** An export of `records` records with a few attributes each (well over the off-thread threshold for 500). */
function exportRequest(records: number, tag: string) {
  const logRecords = Array.from({ length: records }, (_, i) => ({
    timeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i)),
    severityNumber: 9,
    body: { stringValue: `${tag} record ${i} ünïcode "quoted" \\ back` },
    attributes: [
      { key: 'EventID', value: { intValue: i } },
      { key: 'Image', value: { stringValue: `C:\\Windows\\System32\\${tag}${i}.exe` } },
      { key: 'flag', value: { boolValue: i % 2 === 0 } },
    ],
  }));
  return { resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: tag } }] }, scopeLogs: [{ scope: { name: 's', version: '1' }, logRecords }] }] };
}

const protobuf = (records: number, tag: string): Uint8Array => ExportLogsServiceRequestType.encode(ExportLogsServiceRequestType.fromObject(exportRequest(records, tag))).finish();
const json = (records: number, tag: string): Uint8Array => Buffer.from(JSON.stringify(exportRequest(records, tag)));

/** Bodies of both encodings, large and small, well formed and damaged. */
function bodies(): { encoding: 'protobuf' | 'json'; body: Uint8Array }[] {
  const big = protobuf(500, 'big');
  return [
    { encoding: 'protobuf', body: big },
    { encoding: 'protobuf', body: protobuf(2, 'small') },
    { encoding: 'protobuf', body: big.subarray(0, big.length - 7) },
    { encoding: 'json', body: json(500, 'json') },
    { encoding: 'json', body: Buffer.concat([json(500, 'broken'), Buffer.from('}')]) },
    // A body that shares its buffer with other bytes (as a pooled Buffer would).
    { encoding: 'protobuf', body: Buffer.concat([Buffer.from('xx'), protobuf(400, 'shared'), Buffer.from('yy')]).subarray(2, -2) },
  ];
}

async function answers(decoder: OtlpDecoder): Promise<void> {
  const cases = bodies();
  const decoded = await Promise.all(cases.map(({ encoding, body }) => decoder.decode(encoding, body)));
  decoded.forEach((answer, i) => expect(answer).toEqual(decodeInPlace(cases[i]!.encoding, cases[i]!.body)));
  expect(decoded.filter((d) => d.ok).length).toBe(4);
  expect(decoded.filter((d) => !d.ok).length).toBe(2);
}

describe('OTLP decoding thread', () => {
  it('answers every export as decoding in place does, concurrent exports each with its own answer', async () => {
    const warnings: string[] = [];
    const decoder = createOtlpDecoder({ log: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }), script: SCRIPT });
    try {
      await answers(decoder);
      await answers(decoder);
      expect(warnings).toEqual([]);
    } finally {
      decoder.close();
    }
  });

  it('decodes in place when the thread cannot start, and says so once', async () => {
    const warnings: string[] = [];
    const decoder = createOtlpDecoder({ log: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }), script: pathToFileURL(join(ROOT, 'dist/does-not-exist.js')) });
    try {
      await answers(decoder);
      await answers(decoder);
      expect(warnings.length).toBe(1);
      expect(warnings[0]).toContain('decoded on the main thread');
    } finally {
      decoder.close();
    }
  });

  it('answers exports in flight when closed, and later ones in place', async () => {
    const decoder = createOtlpDecoder({ log: pino({ level: 'silent' }), script: SCRIPT });
    const body = protobuf(500, 'closing');
    const inFlight = decoder.decode('protobuf', body);
    decoder.close();
    const expected = decodeInPlace('protobuf', body);
    expect(await inFlight).toEqual(expected);
    expect(await decoder.decode('protobuf', body)).toEqual(expected);
  });
});
