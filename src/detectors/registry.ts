import type { FindingCode } from '../domain/codes.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { detectorVerdict, type Detector } from './detector.ts';
import { amiSelectorUnscoped } from './ami-selector-unscoped/index.ts';
import { controllerPending } from './karpenter-controller-pending/index.ts';
import { controllerUnhealthy } from './karpenter-controller-unhealthy/index.ts';
import { consolidationChurn } from './consolidation-churn/index.ts';
import { disruptionBlocked } from './disruption-blocked/index.ts';
import { crdConversionWebhookBroken } from './crd-conversion-webhook-broken/index.ts';
import { instanceProvenanceUnproven } from './instance-provenance-unproven/index.ts';
import { karpenterIamDenied } from './karpenter-iam-denied/index.ts';
import { nodeClaimLaunchFailed } from './nodeclaim-launch-failed/index.ts';
import { nodeClaimNotRegistered } from './nodeclaim-not-registered/index.ts';
import { nodeNotInitialized } from './node-not-initialized/index.ts';
import { nodeClassNotReady } from './nodeclass-not-ready/index.ts';
import { nodePoolNotReady } from './nodepool-not-ready/index.ts';
import { nodeTerminationStuck } from './node-termination-stuck/index.ts';
import { orphanedInstance } from './orphaned-instance/index.ts';
import { podsPendingProlonged } from './pods-pending-prolonged/index.ts';
import { subnetIpsLow } from './subnet-ips-low/index.ts';

/** Every detector, one line each. Order does not matter: the report sorts findings. */
export const DETECTORS: readonly Detector[] = [
  controllerPending,
  controllerUnhealthy,
  podsPendingProlonged,
  nodeClaimNotRegistered,
  nodeClaimLaunchFailed,
  nodeClassNotReady,
  nodePoolNotReady,
  orphanedInstance,
  karpenterIamDenied,
  crdConversionWebhookBroken,
  amiSelectorUnscoped,
  instanceProvenanceUnproven,
  subnetIpsLow,
  nodeNotInitialized,
  consolidationChurn,
  disruptionBlocked,
  nodeTerminationStuck,
];

/**
 * Whether the detector of `code` runs on a snapshot that captured these sources (the completeness
 * rule, detectorVerdict): the public question metrics ask before counting its findings.
 */
export function detectorRuns(code: FindingCode, captured: ReadonlySet<SourceName>): boolean {
  const detector = DETECTORS.find((d) => d.code === code);
  return detector !== undefined && detectorVerdict(detector, captured).run;
}
