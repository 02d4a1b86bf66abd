/**
 * The alerts of the interruptions function, for what needs a human: an interruption nobody will
 * drain (the Karpenter controller is down), a surge of interruptions in one NodePool, and AWS
 * Health scheduled maintenance of Karpenter's instances. Pure: the use case decides when.
 */
import type { Alert, ServiceAlertCode } from '../domain/alert.ts';
import { SEVERITY_RANK, type Severity } from '../domain/codes.ts';
import { toIsoSeconds } from '../domain/kube-helpers.ts';
import { formatDuration } from '../domain/settings.ts';
import { NODECLAIM_TAG, NODEPOOL_TAG } from '../domain/tags.ts';
import type { InterruptionKind, ScheduledChange } from '../interruptions/event.ts';
import type { ResolvedEvent } from '../interruptions/owner.ts';
import type { ClusterStatus } from '../ports/state.ts';
import { shellQuote, shellWords } from '../domain/shell.ts';
import { markdownCode, markdownText } from '../domain/markdown.ts';
import { counted } from '../domain/words.ts';

/**
 * Kinds that announce a node is about to go: with the controller down nobody cordons and drains
 * it first. A state change reports what already happened, so it is not among them.
 */
export const UNATTENDED_KINDS: ReadonlySet<InterruptionKind> = new Set<InterruptionKind>([
  'SpotInterruption',
  'CapacityReservationInterruption',
  'RebalanceRecommendation',
  'ScheduledChange',
]);

/**
 * Kinds a surge counts: EC2 taking capacity back. Not rebalance recommendations (they precede the
 * interruption of the same instance, which would count twice), not scheduled changes (alerted on
 * their own), not state changes (Karpenter's own consolidation terminates nodes too).
 */
export const SURGE_KINDS: ReadonlySet<InterruptionKind> = new Set<InterruptionKind>([
  'SpotInterruption',
  'CapacityReservationInterruption',
]);

const INTERRUPTION_ALERT_SEVERITY = {
  INTERRUPTION_UNATTENDED: 'critical',
  INTERRUPTION_SURGE: 'warning',
  SCHEDULED_MAINTENANCE: 'warning',
} as const satisfies Record<Exclude<ServiceAlertCode, 'CLUSTER_UNREADABLE' | 'CLUSTER_NOT_FOUND'>, Severity>;

export type InterruptionAlertCode = keyof typeof INTERRUPTION_ALERT_SEVERITY;

/** Alerts below the configured minimum severity are not sent (the events are still counted). */
export function alertWanted(code: InterruptionAlertCode, minSeverity: Severity): boolean {
  return SEVERITY_RANK[INTERRUPTION_ALERT_SEVERITY[code]] >= SEVERITY_RANK[minSeverity];
}

/** The last scan saw the controller unavailable, recently enough to still believe it. */
export function controllerUnavailable(status: ClusterStatus | undefined, now: Date, maxAgeMs: number): boolean {
  if (status?.controller !== 'unavailable') return false;
  const observed = Date.parse(status.observedAt);
  return !Number.isNaN(observed) && now.getTime() - observed <= maxAgeMs;
}

/** Longer lists are cut here, with a count of the rest: a chat message stays readable. */
const MAX_LISTED = 10;

const KIND_TEXT: Record<InterruptionKind, string> = {
  SpotInterruption: 'Spot interruption warning',
  RebalanceRecommendation: 'rebalance recommendation',
  StateChange: 'state change',
  ScheduledChange: 'scheduled change',
  CapacityReservationInterruption: 'capacity reservation interruption warning',
};

export interface UnattendedInput {
  cluster: string;
  status: ClusterStatus;
  /** This batch's events of UNATTENDED_KINDS in the cluster. */
  events: readonly ResolvedEvent[];
  now: Date;
}

export function unattendedAlert(input: UnattendedInput): Alert {
  const { cluster, status, events, now } = input;
  const instances = byInstance(events);
  const age = now.getTime() - Date.parse(status.observedAt);
  return {
    event: 'interruption-unattended',
    severity: INTERRUPTION_ALERT_SEVERITY.INTERRUPTION_UNATTENDED,
    cluster,
    code: 'INTERRUPTION_UNATTENDED',
    title: `Karpenter is down: ${counted(instances.length, 'instance')} about to be interrupted with nobody to drain ${instances.length === 1 ? 'it' : 'them'}`,
    description: [
      `The last scan (${markdownText(status.observedAt)}, ${formatDuration(Math.max(0, age))} ago) found the Karpenter controller unavailable: ` +
        `${status.readyReplicas}/${status.desiredReplicas} replicas ready. Karpenter cordons and drains the nodes EC2 is about to ` +
        'take; while it is down, their pods are killed with the instance.',
      '',
      ...listed(instances.map(([, evs]) => `- ${instanceFacts(evs)}: ${happenings(evs, now)}`)),
    ].join('\n'),
    nextSteps: [
      kubeconfigStep(events, cluster),
      'kubectl get deployments --all-namespaces -l app.kubernetes.io/name=karpenter',
      ...listed(instances.map(([id, evs]) => drainStep(id, evs[0]?.instance?.privateDnsName))),
    ],
    threadId: `INTERRUPTION_UNATTENDED#${cluster}`,
  };
}

export interface SurgeInput {
  cluster: string;
  nodePool: string;
  /** The window's count after this batch. */
  total: number;
  threshold: number;
  windowStart: Date;
  windowMs: number;
  /** This batch's events of the window (the latest ones). */
  events: readonly ResolvedEvent[];
  now: Date;
}

export function surgeAlert(input: SurgeInput): Alert {
  const { cluster, nodePool, total, threshold, windowStart, windowMs, events, now } = input;
  const window = formatDuration(windowMs);
  const region = events[0]?.region;
  const spotTypes = [
    ...new Set(events.filter((e) => e.kind === 'SpotInterruption').flatMap((e) => e.instance?.instanceType ?? [])),
  ].sort();
  return {
    event: 'interruption-surge',
    severity: INTERRUPTION_ALERT_SEVERITY.INTERRUPTION_SURGE,
    cluster,
    code: 'INTERRUPTION_SURGE',
    title: `Interruption surge: ${total} interruptions of NodePool ${nodePool} within ${window}`,
    description: [
      `${total} Spot or capacity reservation interruption warnings for NodePool ${markdownCode(nodePool)} since ${toIsoSeconds(windowStart)} ` +
        `(threshold: ${threshold} per ${window} window). Karpenter replaces interrupted nodes, but at this rate the capacity ` +
        'it picks keeps being taken back: pods restart again and again.',
      '',
      '**Latest:**',
      ...listed(byInstance(events).map(([, evs]) => `- ${instanceFacts(evs)}: ${happenings(evs, now)}`)),
    ].join('\n'),
    nextSteps: [
      kubeconfigStep(events, cluster),
      `kubectl get nodepool ${shellQuote(nodePool)} -o jsonpath='{.spec.template.spec.requirements}'`,
      `kubectl get nodeclaims -l ${shellQuote(`${NODEPOOL_TAG}=${nodePool}`)} -o wide`,
      ...(spotTypes.length > 0 && region
        ? [
            `aws ec2 get-spot-placement-scores --region ${shellQuote(region)} --region-names ${shellQuote(region)} --single-availability-zone ` +
              `--target-capacity ${total} --instance-types ${shellWords(spotTypes)}`,
          ]
        : []),
      `Allow more instance types, sizes and zones in NodePool ${markdownText(nodePool)} (spec.template.spec.requirements), or add an ` +
        'on-demand fallback NodePool, so Karpenter can move to capacity that is not being reclaimed.',
    ],
    threadId: `INTERRUPTION_SURGE#${cluster}#${nodePool}`,
  };
}

export interface ScheduledMaintenanceInput {
  cluster: string;
  change: ScheduledChange;
  /** The event's instances in this cluster. */
  events: readonly ResolvedEvent[];
  now: Date;
}

export function scheduledMaintenanceAlert(input: ScheduledMaintenanceInput): Alert {
  const { cluster, change, events, now } = input;
  const instances = byInstance(events);
  return {
    event: 'scheduled-maintenance',
    severity: INTERRUPTION_ALERT_SEVERITY.SCHEDULED_MAINTENANCE,
    cluster,
    code: 'SCHEDULED_MAINTENANCE',
    title:
      `Scheduled maintenance: ${change.eventTypeCode} for ${counted(instances.length, 'instance')}` +
      (change.startTime ? ` from ${change.startTime}` : ''),
    description: [
      `AWS Health${change.statusCode ? ` (${markdownText(change.statusCode)})` : ''} scheduled change ${markdownCode(change.eventTypeCode)} affects ` +
        `${counted(instances.length, 'Karpenter instance')} of ${markdownText(cluster)}.`,
      `**Maintenance:** ${markdownText(maintenanceWindow(change, now))}`,
      `**Event:** ${markdownCode(change.eventArn)}`,
      '',
      ...listed(instances.map(([, evs]) => `- ${instanceFacts(evs)}`)),
      '',
      'Karpenter replaces these nodes as soon as this event reaches its own interruption queue (settings.interruptionQueue); ' +
        'without one, replace them before the start time to choose the moment yourself.',
    ].join('\n'),
    nextSteps: [
      kubeconfigStep(events, cluster),
      ...listed(instances.map(([id, evs]) => replaceStep(id, evs[0]))),
      `aws health describe-event-details --region us-east-1 --event-arns ${shellQuote(change.eventArn)}`,
    ],
    threadId: `SCHEDULED_MAINTENANCE#${cluster}#${change.eventArn}`,
  };
}

/** Events grouped by instance, in first-seen order. */
function byInstance(events: readonly ResolvedEvent[]): [string, ResolvedEvent[]][] {
  const groups = new Map<string, ResolvedEvent[]>();
  for (const e of events) groups.set(e.instanceId, [...(groups.get(e.instanceId) ?? []), e]);
  return [...groups.entries()];
}

function instanceFacts(events: readonly ResolvedEvent[]): string {
  const e = events[0];
  if (!e) return '';
  const i = e.instance;
  const where = markdownText([i?.instanceType, i?.availabilityZone && `in ${i.availabilityZone}`].filter(Boolean).join(' '));
  const node = i?.privateDnsName ? `, node ${markdownCode(i.privateDnsName)}` : '';
  return `${markdownCode(e.instanceId)} (NodePool ${markdownCode(e.nodePool)}${where ? `, ${where}` : ''}${node})`;
}

function happenings(events: readonly ResolvedEvent[], now: Date): string {
  return events.map((e) => happening(e, now)).join('; ');
}

/** What happens when: a scheduled change by its maintenance window (days after AWS Health announced it), the rest by the event's time. */
function happening(e: ResolvedEvent, now: Date): string {
  const what = `${KIND_TEXT[e.kind]}${e.action ? ` (${markdownText(e.action)})` : ''}`;
  const change = e.scheduledChange;
  if (!change) return `${what} at ${markdownText(e.time)}`;
  return `${what} ${markdownText(maintenanceWindow(change, now))}, announced ${markdownText(e.time)}`;
}

/** A scheduled change's maintenance window, the same in every alert: `from START (in 4d4h) to END`. */
function maintenanceWindow(change: ScheduledChange, now: Date): string {
  if (!change.startTime) return `start not given${change.endTime ? `, ends ${change.endTime}` : ''}`;
  return `from ${change.startTime}${inText(change.startTime, now)}${change.endTime ? ` to ${change.endTime}` : ''}`;
}

function kubeconfigStep(events: readonly ResolvedEvent[], cluster: string): string {
  const region = events[0]?.region;
  return `aws eks update-kubeconfig${region ? ` --region ${shellQuote(region)}` : ''} --name ${shellQuote(cluster)}`;
}

function drainStep(instanceId: string, node: string | undefined): string {
  return node
    ? `kubectl drain ${shellQuote(node)} --ignore-daemonsets --delete-emptydir-data`
    : `kubectl get nodes -o custom-columns=NAME:.metadata.name,PROVIDER:.spec.providerID --no-headers | grep ${shellQuote(instanceId)}`;
}

/** With the controller running, deleting the NodeClaim is Karpenter's own graceful replacement. */
function replaceStep(instanceId: string, event: ResolvedEvent | undefined): string {
  const nodeClaim = event?.instance?.tags[NODECLAIM_TAG];
  return nodeClaim ? `kubectl delete nodeclaim ${shellQuote(nodeClaim)}` : drainStep(instanceId, event?.instance?.privateDnsName);
}

function listed(lines: string[]): string[] {
  return lines.length <= MAX_LISTED ? lines : [...lines.slice(0, MAX_LISTED), `…and ${lines.length - MAX_LISTED} more`];
}

function inText(iso: string, now: Date): string {
  const ms = Date.parse(iso) - now.getTime();
  return ms > 0 ? ` (in ${formatDuration(ms)})` : ' (already started)';
}
