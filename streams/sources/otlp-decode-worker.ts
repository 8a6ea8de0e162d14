// The OTLP decoding thread (`otlp-decode.ts`): decodes export bodies in the order they arrive.
import { parentPort } from 'node:worker_threads';
import { decodeInPlace } from './otlp-decode.js';
import type { DecodeAnswer, DecodeJob } from './otlp-decode.js';

const port = parentPort;
if (port === null) throw new Error('otlp-decode-worker must run as a worker thread');
port.on('message', ({ id, encoding, body }: DecodeJob) => {
  port.postMessage({ id, decoded: decodeInPlace(encoding, body) } satisfies DecodeAnswer);
});
