import { createHash } from 'node:crypto';
import type { CauseCodeOf, FindingCode, RemediationAction, RemediationStatus, Severity } from './codes.ts';
import type { FindingCost } from './cost.ts';

/** What a finding is about. `Instance` uses `id`; Kubernetes objects use namespace/name. */
export interface ResourceRef {
  kind: string;
  namespace?: string;
  name?: string;
  id?: string;
}

interface Cause<C extends FindingCode = FindingCode> {
  code: CauseCodeOf<C>;
  detail: string;
}

export interface Remediation {
  action: RemediationAction;
  status: RemediationStatus;
  /** Why it was skipped or failed, or what came of an applied action; empty when planned or manual. */
  reason: string;
  /** Commands or edits a human can run, filled with real names and ARNs. */
  steps: string[];
}

/**
 * What a finding stands for, for metrics (docs/service.md "Metrics"): how many objects (NodeClaims,
 * instances) and the NodePool they belong to. Set by the detectors whose metrics count objects,
 * so the dashboards follow the detector's own grouping. Additive: absent on the other findings.
 */
interface FindingCounts {
  /** Objects behind this finding, at least 1. */
  objects: number;
  /** The NodePool they belong to, when known. */
  nodePool?: string;
}

export interface Finding<C extends FindingCode = FindingCode> {
  id: string;
  code: C;
  severity: Severity;
  title: string;
  resource: ResourceRef;
  /** ISO-8601: when the condition began, from the data. */
  since: string | null;
  cause: Cause<C> | null;
  evidence: string[];
  remediation: Remediation | null;
  counts?: FindingCounts;
  /** What the instances behind it cost per day (docs/cost.md). Additive: absent when nothing could be priced. */
  cost?: FindingCost;
}

/**
 * Stable fingerprint of a finding: the same problem on the same resource gets the same id on
 * every scan (alert dedupe relies on it). `discriminator` separates findings that share a
 * resource, e.g. two missing IAM actions on one controller.
 */
export function findingId(code: FindingCode, resource: ResourceRef, discriminator = ''): string {
  const key = [code, resource.kind, resource.namespace ?? '', resource.name ?? '', resource.id ?? '', discriminator].join(
    '\u0000',
  );
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/**
 * A step a human pastes into a shell: the reason on a `#` comment line, then the command alone
 * (multi-line commands, e.g. YAML to apply, follow on further lines).
 */
export function commandStep(why: string, command: string): string {
  // The reason names data (a NodePool, a role): a line break in it would put the rest of the
  // reason, uncommented, on a line of its own that a paste runs.
  const comment = why.replace(/[\r\n\v\f\u0085\u2028\u2029]+/g, ' ').replace(/\s*:\s*$/, '');
  return `# ${comment}\n${command}`;
}

/**
 * The programs a remediation step runs, or a shell assignment such as `vpc=$(aws ...)`: a one-line
 * step that starts with one is a command. The table prints it whole (a command split over two lines
 * no longer pastes: test/unit/detectors/steps-are-pasteable.test.ts) and chat shows it as code;
 * any other one-line step is prose to both.
 */
const COMMAND_START = /^(?:(?:kubectl|aws|eksctl|helm|karpenter-sentinel|curl|terraform)(?:\s|$)|[A-Za-z_][A-Za-z0-9_]*=)/;

export function startsWithCommand(line: string): boolean {
  return COMMAND_START.test(line);
}

export function manualRemediation(steps: string[]): Remediation {
  return { action: 'MANUAL', status: 'manual', reason: '', steps };
}

/** A proposed automated action; the planner decides whether it may run (guardrails, modes). */
export function proposedAction(action: Exclude<RemediationAction, 'MANUAL'>, steps: string[]): Remediation {
  return { action, status: 'planned', reason: '', steps };
}

export type NewFinding<C extends FindingCode> = Omit<Finding<C>, 'id'> & { discriminator?: string };

/** The one way detectors build findings, so ids are always derived the same way. */
export function newFinding<C extends FindingCode>(f: NewFinding<C>): Finding<C> {
  // Spelled out so the key order is the one docs/report-json.md#report-json shows, whatever order a detector wrote.
  return {
    id: findingId(f.code, f.resource, f.discriminator),
    code: f.code,
    severity: f.severity,
    title: f.title,
    resource: f.resource,
    since: f.since,
    cause: f.cause,
    evidence: f.evidence,
    remediation: f.remediation,
    // Omitted rather than undefined, so a report's JSON and deep equality stay as before.
    ...(f.counts ? { counts: f.counts } : {}),
    ...(f.cost ? { cost: f.cost } : {}),
  };
}
