import type { FindingCode } from '../domain/codes.ts';
import type { SourceName } from '../domain/snapshot.ts';
import { detectorVerdict, type Detector } from './detector.ts';
import { amiSelectorUnscoped } from './ami-selector-unscoped.ts';
import { controllerPending } from './controller-pending.ts';
import { crdConversionWebhookBroken } from './crd-conversion-webhook-broken.ts';
import { instanceProvenanceUnproven } from './instance-provenance-unproven.ts';
import { karpenterIamDenied } from './karpenter-iam-denied.ts';
import { nodeClaimLaunchFailed } from './nodeclaim-launch-failed.ts';
import { nodeClaimNotRegistered } from './nodeclaim-not-registered.ts';
import { nodeClassNotReady } from './nodeclass-not-ready.ts';
import { nodePoolNotReady } from './nodepool-not-ready.ts';
import { orphanedInstance } from './orphaned-instance.ts';
import { podsPendingProlonged } from './pods-pending-prolonged.ts';

/** Every detector, one line each. Order does not matter: the report sorts findings. */
export const DETECTORS: readonly Detector[] = [
  controllerPending,
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
];

/**
 * Whether the detector of `code` runs on a snapshot that captured these sources (the completeness
 * rule, detectorVerdict): the public question metrics ask before counting its findings.
 */
export function detectorRuns(code: FindingCode, captured: ReadonlySet<SourceName>): boolean {
  const detector = DETECTORS.find((d) => d.code === code);
  return detector !== undefined && detectorVerdict(detector, captured).run;
}
