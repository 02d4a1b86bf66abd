/**
 * Offline local invoke: one Lambda function of the service, built with its real handler
 * (`create<Fn>Handler`) over in-memory adapters instead of the AWS ones of its composition root,
 * fed an event file. AWS and Kubernetes are the simulator seeded from a capture (`--simulate`,
 * default examples/healthy, for cleanup examples/cleanup-partial-destroy); the state table, alert topic, metrics and scan queue are in memory;
 * Slack is never posted to. Needs no deployed stack, no credentials, no network but 127.0.0.1.
 *
 * Usage: `npm run invoke -- <function> <event-file> [--simulate <capture>]... [--clusters a,b] [--now ISO]`
 *   e.g. `npm run invoke -- scan events/scan.message.json --simulate examples/fargate-bootstrap-deadlock`
 *        `npm run invoke -- cleanup events/cleanup.dry-run.json`
 *
 * Prints one JSON document on stdout: { function, now, response, alerts (as chat notifications),
 * metrics (the datums), emf (the same metrics as the EMF documents the deployed function writes to
 * its log), queued, slack, notes }; the handler's log lines, EMF lines included, go to stderr, in
 * the deployed shape (Powertools: upper-case `level`, the Lambda context keys of a synthetic
 * context, the `effective configuration` line first; POWERTOOLS_LOG_LEVEL applies). Exit 0 when the handler
 * returned, 1 when it threw (the document then carries `error`), 2 with one line on stderr when
 * the command line, the event file, the capture or a setting is wrong.
 */
import path from 'node:path';
import { SentinelError } from '../src/domain/errors.ts';
import { chatNotificationOf } from '../src/domain/chat-notification.ts';
import { actAsOnDemandLambda, readLoggingConfig } from '../src/config.ts';
import { powertoolsLogging } from '../src/service/powertools-logger.ts';
import { REPO_ROOT, type LambdaFunctionName } from './functions.ts';
import { steppingClock } from '../test/support/clock.ts';
import { localContext, type LocalFunction, type LocalSetup } from './invoke-local/local.ts';
import { parseRequest, USAGE, type InvokeRequest } from './invoke-local/request.ts';

/** What `--simulate` defaults to: a healthy cluster, or for cleanup one left behind by a partial destroy. */
function defaultCapture(fn: LambdaFunctionName): string {
  const capture = path.join(REPO_ROOT, 'examples', fn === 'cleanup' ? 'cleanup-partial-destroy' : 'healthy');
  return path.relative(process.cwd(), capture) || capture;
}

/** Loaded on demand: `interruptions` and `slack-notify` load no Kubernetes code, as when deployed. */
const BUILDERS: Record<LambdaFunctionName, (setup: LocalSetup) => Promise<LocalFunction>> = {
  'scan-dispatch': async (setup) => (await import('./invoke-local/scan-dispatch.ts')).localScanDispatch(setup),
  scan: async (setup) => (await import('./invoke-local/scan.ts')).localScan(setup),
  interruptions: async (setup) => (await import('./invoke-local/interruptions.ts')).localInterruptions(setup),
  'slack-notify': async (setup) => (await import('./invoke-local/slack-notify.ts')).localSlackNotify(setup),
  cleanup: async (setup) => (await import('./invoke-local/cleanup.ts')).localCleanup(setup),
};

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    writeDocument(`${USAGE}\n`);
    return 0;
  }
  const request = parseRequest(argv, () => new Date());
  // Logged as deployed: the same Powertools logger, POWERTOOLS_* settings and Lambda context keys.
  const logging = readLoggingConfig();
  const { logger, context } = powertoolsLogging(logging);
  const fn = await BUILDERS[request.fn]({
    capture: request.simulate ?? [defaultCapture(request.fn)],
    clusters: request.clusters,
    // Fixed at --now; a wait (a retry's backoff) moves it on at once instead of waiting.
    clock: steppingClock(request.now),
    logger,
    logging,
    logContext: context,
    logLine: (line) => process.stderr.write(`${line}\n`),
  });
  let response: unknown;
  let error: string | undefined;
  try {
    response = await fn.invoke(request.event, localContext(request.fn, fn.timeoutMs));
  } catch (thrown) {
    error = oneLine(thrown);
  } finally {
    await fn.close();
  }
  writeDocument(`${JSON.stringify(documentOf(request, fn, response, error), null, 2)}\n`);
  return error === undefined ? 0 : 1;
}

function documentOf(request: InvokeRequest, fn: LocalFunction, response: unknown, error: string | undefined) {
  const outputs = fn.outputs();
  return {
    function: request.fn,
    now: request.now.toISOString(),
    ...(error === undefined ? { response } : { error }),
    alerts: (outputs.alerts ?? []).map(chatNotificationOf),
    metrics: outputs.metrics ?? [],
    emf: outputs.emf ?? [],
    queued: outputs.queued ?? [],
    slack: outputs.slack ?? [],
    notes: outputs.notes,
  };
}

function oneLine(error: unknown): string {
  const text =
    error instanceof SentinelError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * stdout carries only the document. Powertools writes INFO lines to stdout (as deployed, where
 * Lambda collects both streams): here every other write to stdout goes to stderr, with the WARN
 * and ERROR lines, so the log reads as the deployed one and the document stays parseable.
 */
const stdoutWrite = process.stdout.write.bind(process.stdout);
function writeDocument(text: string): void {
  stdoutWrite(text);
}
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
actAsOnDemandLambda();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Bad input (command line, event file, capture, setting) is 2; anything else is a failure of this tool.
    process.stderr.write(`invoke-local: ${oneLine(error)}\n`);
    process.exitCode = error instanceof SentinelError ? 2 : 1;
  },
);
