/**
 * Which alerts one scan of one cluster sends, deduplicated against the alerts still open in the
 * state table: one when a finding appears, a reminder at most every `reminderIntervalMs` while it
 * persists, one when it clears. Pure: the caller reads the open alerts, publishes `alerts`, then
 * saves `save` and clears `clear`. Remediation alerts are not planned here: they go through the
 * state table's outbox (remediation-alerts.ts), recorded before the action.
 */
import type { AlertSettings } from '../domain/settings.ts';
import type { Alert, AlertEvent, ServiceAlertCode } from '../domain/alert.ts';
import { SEVERITY_RANK, type Severity } from '../domain/codes.ts';
import type { Finding } from '../domain/finding.ts';
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import type { Report } from '../domain/report.ts';
import { formatDuration } from '../domain/settings.ts';
import type { OpenAlert } from '../ports/state.ts';
import { findingFacts, sinceText, stepsFor } from './finding-text.ts';
import { shellQuote } from '../domain/shell.ts';
import { markdownText } from '../domain/markdown.ts';

/** The open-alert key (and alert code) of "the scan could not read the cluster at all". */
export const UNREADABLE_KEY = 'CLUSTER_UNREADABLE' satisfies ServiceAlertCode;
/** The open-alert key (and alert code) of "EKS says the cluster does not exist". */
const NOT_FOUND_KEY = 'CLUSTER_NOT_FOUND' satisfies ServiceAlertCode;
/** Alerts about the scan itself, not a finding: never resolved by a finding's absence. */
const SERVICE_KEYS: ReadonlySet<string> = new Set([UNREADABLE_KEY, NOT_FOUND_KEY]);

export interface AlertPlan {
  alerts: Alert[];
  /** Open alerts to write: new ones, and those whose reminder went out. */
  save: OpenAlert[];
  /** Keys of open alerts that are resolved. */
  clear: string[];
}

export interface ScanAlertInput {
  cluster: string;
  report: Report;
  /** Why the scan read nothing of the cluster (ScanClusterResult.unreadable). */
  unreadable?: string;
  /** Set when EKS said the cluster does not exist (DescribeCluster ResourceNotFoundException): where it looked. */
  notFound?: { region: string };
  open: readonly OpenAlert[];
  now: Date;
  settings: AlertSettings;
}

/**
 * Dedupe rules:
 * - a finding at or above `minSeverity` that is not open → `opened`;
 * - open, and `reminderIntervalMs` since the last alert, or now more severe than when last alerted
 *   (a controller losing its last ready replica) → `reminder`;
 * - open and absent from a COMPLETE, readable report → `resolved`. Absence on incomplete data
 *   proves nothing, so nothing is resolved then. A finding that is still present but dropped below
 *   `minSeverity` stays open, silently, until it is really gone.
 */
export function planScanAlerts(input: ScanAlertInput): AlertPlan {
  const { cluster, report, now, settings } = input;
  const plan: AlertPlan = { alerts: [], save: [], clear: [] };
  const open = new Map(input.open.map((o) => [o.key, o]));
  const nowIso = toIsoSeconds(now);

  planUnreadable(input, open.get(UNREADABLE_KEY), plan);
  planNotFound(input, open.get(NOT_FOUND_KEY), plan);

  const findings = uniqueById(report.findings);
  for (const f of findings) {
    if (SEVERITY_RANK[f.severity] < SEVERITY_RANK[settings.minSeverity]) continue;
    const existing = open.get(f.id);
    if (!existing) {
      plan.alerts.push(findingAlert('opened', f, cluster, now, []));
      plan.save.push({
        cluster,
        key: f.id,
        code: f.code,
        severity: f.severity,
        title: f.title,
        firstSeen: nowIso,
        lastSent: nowIso,
      });
      continue;
    }
    const escalated = SEVERITY_RANK[f.severity] > SEVERITY_RANK[existing.severity];
    if (!escalated && !reminderDue(existing, now, settings.reminderIntervalMs)) continue;
    const lead = escalated
      ? `Escalated from ${existing.severity} to ${f.severity}; open since ${sinceText(existing.firstSeen, now)}.`
      : `Still open since ${sinceText(existing.firstSeen, now)}; reminded every ${formatDuration(settings.reminderIntervalMs)}.`;
    plan.alerts.push(findingAlert('reminder', f, cluster, now, [lead, '']));
    plan.save.push({ ...existing, code: f.code, severity: f.severity, title: f.title, lastSent: nowIso });
  }

  if (input.unreadable === undefined && report.complete) {
    const present = new Set(findings.map((f) => f.id));
    const gone = [...open.values()]
      .filter((o) => !SERVICE_KEYS.has(o.key) && !present.has(o.key))
      .sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || a.key.localeCompare(b.key));
    for (const o of gone) {
      plan.alerts.push(resolvedAlert(o, now, 'no longer found by a complete scan'));
      plan.clear.push(o.key);
    }
  }
  return plan;
}

/** What a service alert says while its condition holds. */
interface ServiceAlertText {
  title: string;
  /** "Still … since": the reminder's lead. */
  still: string;
  description: string[];
  nextSteps: string[];
}

/** CLUSTER_UNREADABLE: the scan read nothing of the cluster (and EKS did not say it is gone). */
function planUnreadable(input: ScanAlertInput, existing: OpenAlert | undefined, plan: AlertPlan): void {
  const { cluster, unreadable, notFound } = input;
  const text: ServiceAlertText | undefined =
    unreadable === undefined
      ? undefined
      : {
          title: `Cannot read cluster ${cluster}: the sentinel is blind to it`,
          still: 'Still unreadable',
          description: [
            `**Error:** ${markdownText(unreadable)}`,
            'Nothing of the cluster could be read, so no Karpenter problem can be found or fixed there, and no open alert of it is resolved until a scan reads it again.',
          ],
          nextSteps: [
            `aws eks describe-cluster --name ${shellQuote(cluster)} --query 'cluster.[status,endpoint,accessConfig]'`,
            `aws eks list-access-entries --cluster-name ${shellQuote(cluster)}`,
            `karpenter-sentinel scan --cluster ${shellQuote(cluster)}`,
          ],
        };
  const resolvedWhy =
    notFound === undefined
      ? 'the scan reads the cluster again'
      : `EKS says the cluster does not exist in ${notFound.region}: nothing left to read (see ${NOT_FOUND_KEY})`;
  planServiceAlert(input, UNREADABLE_KEY, existing, text, resolvedWhy, plan);
}

/**
 * CLUSTER_NOT_FOUND: a cluster that does not exist is nothing to monitor: a name to correct, or one
 * to take out of `clusters` once deleted.
 */
function planNotFound(input: ScanAlertInput, existing: OpenAlert | undefined, plan: AlertPlan): void {
  const { cluster, notFound, unreadable } = input;
  const text: ServiceAlertText | undefined =
    notFound === undefined
      ? undefined
      : {
          title: `Cluster ${cluster} does not exist in ${notFound.region}: nothing to monitor`,
          still: 'Still not found',
          description: [
            `**Error:** EKS DescribeCluster answered ResourceNotFoundException for ${markdownText(cluster)} in ${markdownText(notFound.region)}.`,
            'A typo, another region or account, or a deleted cluster: none of its Kubernetes objects can be read. Only EC2 instances still tagged for it are looked at (orphans of a deleted cluster).',
          ],
          nextSteps: [
            `aws eks list-clusters --region ${shellQuote(notFound.region)} --output text`,
            `aws sts get-caller-identity --query Account --output text`,
            'Correct the name, or remove a deleted cluster from the `clusters` parameter (docs/deploy.md) and deploy again.',
          ],
        };
  const resolvedWhy =
    unreadable === undefined
      ? 'EKS describes the cluster again'
      : `EKS describes the cluster again, but the scan cannot read it (see ${UNREADABLE_KEY})`;
  planServiceAlert(input, NOT_FOUND_KEY, existing, text, resolvedWhy, plan);
}

/**
 * A service alert follows the same opened / reminder / resolved cycle as a finding: `text` while
 * its condition holds, else resolved (when open) for `resolvedWhy`.
 */
function planServiceAlert(
  input: ScanAlertInput,
  key: ServiceAlertCode,
  existing: OpenAlert | undefined,
  text: ServiceAlertText | undefined,
  resolvedWhy: string,
  plan: AlertPlan,
): void {
  const { cluster, now, settings } = input;
  const nowIso = toIsoSeconds(now);
  if (text === undefined) {
    if (existing) {
      plan.alerts.push(resolvedAlert(existing, now, resolvedWhy));
      plan.clear.push(key);
    }
    return;
  }
  const severity: Severity = 'critical';
  if (SEVERITY_RANK[severity] < SEVERITY_RANK[settings.minSeverity]) return;
  if (existing && !reminderDue(existing, now, settings.reminderIntervalMs)) return;
  const lead = existing ? [`${text.still} since ${sinceText(existing.firstSeen, now)}.`, ''] : [];
  plan.alerts.push({
    event: existing ? 'reminder' : 'opened',
    severity,
    cluster,
    code: key,
    title: text.title,
    description: [...lead, ...text.description].join('\n'),
    nextSteps: text.nextSteps,
    threadId: key,
  });
  plan.save.push(
    existing
      ? { ...existing, title: text.title, lastSent: nowIso }
      : { cluster, key, code: key, severity, title: text.title, firstSeen: nowIso, lastSent: nowIso },
  );
}

function findingAlert(event: AlertEvent, f: Finding, cluster: string, now: Date, lead: string[]): Alert {
  return {
    event,
    severity: f.severity,
    cluster,
    code: f.code,
    title: f.title,
    description: [...lead, ...findingFacts(f, cluster, now)].join('\n'),
    nextSteps: stepsFor(f),
    threadId: f.id,
  };
}

function resolvedAlert(o: OpenAlert, now: Date, why: string): Alert {
  return {
    event: 'resolved',
    severity: o.severity,
    cluster: o.cluster,
    code: o.code,
    title: o.title,
    description: `Resolved at ${toIsoSeconds(now)}: ${why}. Open since ${sinceText(o.firstSeen, now)}.`,
    nextSteps: [],
    threadId: o.key,
  };
}

/** Due when the interval has passed since the last alert; an unreadable `lastSent` counts as due. */
function reminderDue(o: OpenAlert, now: Date, intervalMs: number): boolean {
  const last = Date.parse(o.lastSent);
  return Number.isNaN(last) || now.getTime() - last >= intervalMs;
}

function uniqueById(findings: readonly Finding[]): Finding[] {
  const byId = new Map<string, Finding>();
  for (const f of findings) if (!byId.has(f.id)) byId.set(f.id, f);
  return [...byId.values()];
}
