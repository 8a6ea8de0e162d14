import type { Dispatcher } from 'undici';
import { bindZeroed, ENRICHER_KEYS, parseDuration } from '../../protocol/index.js';
import type { EnricherEntry, MetricHandles } from '../../protocol/index.js';
import type { ExtractCompiler } from '../extract/index.js';
import { compileEntryParts } from '../entry-compile.js';
import type { CompiledTemplate } from '../result-template.js';
import type { Clock } from '../stage-context.js';
import { commandCall } from './command-enricher.js';
import { compileExtractStep } from './extract-step.js';
import { EnricherConfigError, type EnrichCall, type Enricher, type SourceLookup } from './enricher.js';
import { httpCall } from './http-enricher.js';
import { lookupCall } from './lookup-enricher.js';
import { templateCall } from './template-enricher.js';

/** What building an entry may use: the shared pieces of the daemon. */
export interface EnricherBuildDeps {
  /** Environment variables of `${NAME}` tokens and of commands. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly extract: ExtractCompiler;
  /** The egress-filtered client every http enricher shares. */
  readonly dispatcher: Dispatcher;
  /** The dynamic-source cache; absent when the daemon has no dynamic sources. */
  readonly sources?: SourceLookup;
  readonly clock: Clock;
  readonly metrics: MetricHandles;
}

const DEFAULT_TIMEOUT_MS = 5_000;

function fail(key: string, why: string): never {
  throw new EnricherConfigError(key, why);
}

function durationMs(text: string | undefined, fallback: number, key: string, allowZero: boolean): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || (ms === 0 && !allowZero)) fail(key, `is not a ${allowZero ? '' : 'positive '}duration: ${JSON.stringify(text)}`);
  return ms;
}

/** Every key the entry sets that belongs to another primitive, and every key its own requires. */
function checkKeys(entry: EnricherEntry): void {
  const own = new Set<string>(ENRICHER_KEYS[entry.type].allowed);
  for (const [type, keys] of Object.entries(ENRICHER_KEYS)) {
    if (type === entry.type) continue;
    for (const key of keys.allowed) if (!own.has(key) && entry[key] !== undefined) fail(key, `does not apply to type ${entry.type}`);
  }
  for (const key of ENRICHER_KEYS[entry.type].required) if (entry[key] === undefined) fail(key, `is required for type ${entry.type}`);
}

/** Compiles one entry (daemon-semantics §7.1 checks); throws EnricherConfigError naming the key. */
export async function buildEnricher(entry: EnricherEntry, deps: EnricherBuildDeps): Promise<Enricher> {
  checkKeys(entry);
  const parts = compileEntryParts(entry, deps.env, fail);
  const template = (key: string, source: string): CompiledTemplate => parts.template(key, source, 'identity');
  const extractStep = async (source: string) => {
    try {
      return await compileExtractStep(source, template('extract', source), entry.extract_type ?? 'jq', deps.extract);
    } catch (error) {
      if (error instanceof EnricherConfigError) throw error;
      return fail('extract', error instanceof Error ? error.message : String(error));
    }
  };
  let call: EnrichCall;
  let sync = false;
  switch (entry.type) {
    case 'template':
      call = templateCall(template('template', entry.template as string));
      sync = true;
      break;
    case 'lookup': {
      if (deps.sources === undefined) fail('type', 'lookup needs dynamic sources (--source), and none are configured');
      const extract = entry.extract === undefined ? undefined : await extractStep(entry.extract);
      call = lookupCall({ source: entry.source as string, ...(extract !== undefined ? { extract } : {}), ...(entry.default !== undefined && entry.default !== null ? { fallback: entry.default } : {}) }, deps.sources);
      break;
    }
    case 'http': {
      const labels = { enricher_id: entry.id };
      const extract = entry.extract === undefined ? undefined : await extractStep(entry.extract);
      call = httpCall(
        {
          url: template('url', entry.url as string),
          method: (entry.method ?? 'GET').toUpperCase(),
          headers: Object.entries(entry.headers ?? {}).map(([name, value]) => [name, template(`headers.${name}`, value)] as const),
          ...(entry.body !== undefined ? { body: template('body', entry.body) } : {}),
          cacheTtlMs: durationMs(entry.cache_ttl, 0, 'cache_ttl', true),
          ...(extract !== undefined ? { extract } : {}),
        },
        deps.dispatcher,
        deps.clock,
        {
          hits: bindZeroed(deps.metrics.svc_enrichment_http_cache_hits_total, labels),
          misses: bindZeroed(deps.metrics.svc_enrichment_http_cache_misses_total, labels),
          expirations: bindZeroed(deps.metrics.svc_enrichment_http_cache_expirations_total, labels),
        },
      );
      break;
    }
    case 'command': {
      const argv = entry.command as string[];
      if (argv.length === 0 || argv[0] === '') fail('command', 'must name a program (a non-empty list)');
      call = commandCall({
        argv: argv.map((arg, i) => template(`command[${i}]`, arg)),
        env: Object.entries(entry.env ?? {}).map(([name, value]) => [name, template(`env.${name}`, value)] as const),
        output: entry.output ?? 'json',
        baseEnv: deps.env,
      });
      break;
    }
    default: {
      const never: never = entry.type;
      fail('type', `is unknown: ${String(never)}`);
    }
  }
  return {
    id: entry.id,
    kind: entry.kind,
    injectField: entry.inject_field,
    timeoutMs: durationMs(entry.timeout, DEFAULT_TIMEOUT_MS, 'timeout', false),
    onError: entry.on_error ?? 'skip',
    scope: parts.scope,
    sync,
    call,
  };
}
