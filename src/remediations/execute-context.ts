import type { ActionKind } from '../domain/codes.ts';
import type { Finding, Remediation } from '../domain/finding.ts';
import type { ActionSettings, DetectionSettings } from '../domain/settings.ts';
import type { Ec2Port, IamPort } from '../ports/aws.ts';
import { SourceError } from '../ports/errors.ts';
import type { KubernetesPort } from '../ports/kubernetes.ts';
import { oneLine } from '../domain/shape.ts';

export interface ExecuteContext {
  kube: KubernetesPort;
  ec2: Ec2Port;
  /**
   * Re-lists instance profiles when an instance's launch template is gone (its profile is then the
   * proof); absent, or `region` absent, such an instance is not terminated.
   */
  iam?: IamPort;
  /** The region `ec2` reads: the cluster's, which Karpenter's profile paths name. */
  region?: string;
  actions: ActionSettings;
  detection: DetectionSettings;
  clusterName: string;
  now: Date;
}

/** What an executor sees besides the ports: whether the scan behind the plan was complete. */
export interface ExecutorContext extends ExecuteContext {
  complete: boolean;
}

/**
 * One automated action's executor: carries out planned remediations in `apply` mode, after
 * re-checking its guardrails on fresh data. Gets every such finding of the report at once (in
 * report order) so it can batch calls; returns one outcome per finding, same order. Per-finding
 * errors become `failed`, never a rejection.
 */
export interface ActionExecutor {
  action: ActionKind;
  execute(findings: readonly Finding[], ctx: ExecutorContext): Promise<Remediation[]>;
}

export function applied(r: Remediation, reason: string): Remediation {
  return { ...r, status: 'applied', reason };
}

export function failed(r: Remediation, reason: string): Remediation {
  return { ...r, status: 'failed', reason };
}

/** One line for the report: a port error's summary, else the message. */
export function errorSummary(error: unknown): string {
  if (error instanceof SourceError) return oneLine(error.summary, 200);
  return oneLine(error instanceof Error ? error.message || error.name : String(error), 200);
}
