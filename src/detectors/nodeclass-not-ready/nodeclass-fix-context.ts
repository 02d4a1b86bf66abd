import type { Condition, EC2NodeClass } from '../../domain/kube.ts';
import { conditionText } from '../karpenter/readiness.ts';
import type { DetectContext } from '../detector.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';

/** What the fixes may name from the rest of the snapshot. */
export interface FixContext {
  clusterName: string;
  /** Kubernetes `major.minor` of the cluster, when describe-cluster was captured. */
  clusterVersion: string | undefined;
  accountId: string | undefined;
  controllerNamespace: string;
  /** Subnets known to belong to the cluster (Fargate profiles), to name in tagging commands. */
  knownSubnets: string[];
  /** The whole detection context, for the shared IAM steps (controller role, region). */
  detect: DetectContext;
  clusterArn: string | undefined;
  region: string | undefined;
  /** ` --region <region>`, or nothing when the region is unknown. */
  regionFlag: string;
  /** Steps that find the controller role and allow it `actions` on `resource`, read with the denial text. */
  grant: (actions: string[], resource: string | undefined, deniedText: string) => string[];
}

/** A cause's detail text and the steps that fix it. */
export interface Explanation {
  detail: string;
  steps: string[];
}

export function nameOf(nc: EC2NodeClass): string {
  return nc.metadata?.name ?? '?';
}

/** `reason: message` of a condition, for detail text. */
export function quoted(c: Condition): string {
  return conditionText(c) || `${c.type}=${c.status}`;
}

/** A `kubectl patch --type=merge` of the node class's spec (lists in it are replaced whole). */
export function mergePatch(nc: EC2NodeClass, spec: Record<string, unknown>): string {
  return `kubectl patch ec2nodeclass ${shellQuote(nameOf(nc))} --type=merge -p ${shellJson({ spec })}`;
}
