// The one interface every ingest source implements (stdin and HTTP today; NATS, OTLP, unix sockets and
// pull sources follow it): an Observable of input units. A unit is a batch of raw lines, never one
// event, so nothing per event goes through a subscription. Its `settle` tells the producer the unit
// was committed (or failed: an HTTP answer, later a NATS ack); its `admitted` tells a self-paced source
// that it may read on. The daemon merges every source into one bounded admission point
// (`streams/admission.ts`), which alone talks to the input queue.
import type { Observable } from 'rxjs';
import type { InputUnit } from '../input-unit.js';

export type IngestSource = Observable<InputUnit>;
