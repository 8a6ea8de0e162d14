// `npm run bench`: every benchmark in one run, printed as tables of figures and ratios.
import { runAlertBench } from './alert.js';
import { runRiskBench } from './risk.js';
import { printRows } from './bench-row.js';
import { runConvertBench } from './convert.js';
import { runCorrelationBench } from './correlation.js';
import { runEngineBench } from './engine.js';
import { runEnrichBench } from './enrich.js';
import { EVAL_TITLE, runEvalBench } from './eval.js';
import { runJournalBench } from './journal.js';
import { runLoadBench } from './load.js';
import { runObserversBench } from './observers.js';
import { runStartupBench, STARTUP_TITLE } from './startup.js';
import { runWebhookBench } from './webhook.js';

const events = Number(process.env['BENCH_EVENTS'] ?? 20_000);
// The journal first: its replay and snapshot figures are heap-sensitive, and the engine lanes leave
// compiled corpora behind for the collector to walk.
printRows('Journal (LMDB)', await runJournalBench());
printRows('Rule load by stage (full SigmaHQ corpus, median of 3)', await runLoadBench());
printRows('Engine (single thread, full SigmaHQ corpus; ratios are medians of 5 runs)', await runEngineBench({ events }));
printRows('Field and schema observers (full SigmaHQ corpus + sysmon pipeline, medians of 5)', await runObserversBench(events));
printRows('Correlation', await runCorrelationBench());
printRows('sigmad convert (full SigmaHQ corpus; PostgreSQL 15 started for the run)', await runConvertBench());
printRows(EVAL_TITLE, await runEvalBench());
printRows(STARTUP_TITLE, await runStartupBench());
printRows('Alert pipeline', await runAlertBench());
printRows('Webhooks', await runWebhookBench());
printRows('Risk layer', runRiskBench());
printRows('Enrichment', runEnrichBench());
