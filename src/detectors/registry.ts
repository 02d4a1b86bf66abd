import type { FindingCode } from '../domain/codes.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { detectorVerdict, type Detector } from './detector.ts';
import { amiSelectorUnscoped } from './ami-selector-unscoped/detector.ts';
import { controllerPending } from './karpenter-controller-pending/detector.ts';
import { controllerUnhealthy } from './karpenter-controller-unhealthy/detector.ts';
import { consolidationChurn } from './consolidation-churn/detector.ts';
import { consolidationBlocked } from './consolidation-blocked/detector.ts';
import { disruptionBlocked } from './disruption-blocked/detector.ts';
import { crdConversionWebhookBroken } from './crd-conversion-webhook-broken/detector.ts';
import { admissionWebhookBroken } from './admission-webhook-broken/detector.ts';
import { interruptionHandlingOff } from './interruption-handling-off/detector.ts';
import { instanceProvenanceUnproven } from './instance-provenance-unproven/detector.ts';
import { karpenterIamDenied } from './karpenter-iam-denied/detector.ts';
import { nodeClaimLaunchFailed } from './nodeclaim-launch-failed/detector.ts';
import { nodeClaimNotRegistered } from './nodeclaim-not-registered/detector.ts';
import { nodeNotInitialized } from './node-not-initialized/detector.ts';
import { nodeNotReady } from './node-not-ready/detector.ts';
import { nodeClassNotReady } from './nodeclass-not-ready/detector.ts';
import { nodePoolNotReady } from './nodepool-not-ready/detector.ts';
import { nodeTerminationStuck } from './node-termination-stuck/detector.ts';
import { orphanedInstance } from './orphaned-instance/detector.ts';
import { podsPendingProlonged } from './pods-pending-prolonged/detector.ts';
import { subnetIpsLow } from './subnet-ips-low/detector.ts';

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
  admissionWebhookBroken,
  amiSelectorUnscoped,
  instanceProvenanceUnproven,
  subnetIpsLow,
  nodeNotInitialized,
  nodeNotReady,
  consolidationChurn,
  consolidationBlocked,
  disruptionBlocked,
  nodeTerminationStuck,
  interruptionHandlingOff,
];

/**
 * Whether the detector of `code` runs on a snapshot that captured these sources (the completeness
 * rule, detectorVerdict): the public question metrics ask before counting its findings.
 */
export function detectorRuns(code: FindingCode, captured: ReadonlySet<SourceName>): boolean {
  const detector = DETECTORS.find((d) => d.code === code);
  return detector !== undefined && detectorVerdict(detector, captured).run;
}
