import { commandStep } from '../../domain/finding.ts';
import type { VolumeAttachment } from '../../domain/kube.ts';
import { shellJson, shellQuote, shellWords } from '../../domain/shell.ts';
import { regionFlag } from '../aws-iam/iam-arn.ts';
import {
  DO_NOT_DISRUPT_ANNOTATION,
  type DoNotDisrupt,
  type MultiplePdbs,
  type PdbBlock,
} from '../karpenter/eviction-blockers.ts';
import { blockingPdbSteps, multiplePdbSteps as sharedMultiplePdbSteps } from '../karpenter/pdb-steps.ts';
import { removeDoNotDisrupt, terminationGracePeriodPatch } from '../karpenter/disruption-steps.ts';

/**
 * The steps of NODE_TERMINATION_STUCK, one builder per cause: commands a human pastes, every value
 * from the cluster quoted (src/domain/shell.ts). Nothing here runs anything: the remediation is
 * MANUAL, because every way out (scaling a workload, loosening a budget, dropping an annotation,
 * removing a finalizer) is a decision about someone's workload.
 */

/** What the steps need to know about the node being terminated. */
export interface StepTarget {
  nodeName: string | undefined;
  claimName: string | undefined;
  pool: string | undefined;
  instanceId: string | undefined;
  region: string | undefined;
  /** The controller's namespace and Deployment, when found. */
  controller: { namespace: string; deployment: string; scaledToZero: boolean } | undefined;
  /** A terminationGracePeriod bounds this drain (then the NodePool patch is not suggested). */
  hasDeadline: boolean;
}

const q = shellQuote;

/** `kubectl get pods -A -o wide --field-selector spec.nodeName=NODE`: what is still on the node. */
export function podsOnNodeStep(nodeName: string): string {
  return commandStep(
    'the pods still on the node (the drain waits for every one that does not tolerate karpenter.sh/disrupted)',
    `kubectl get pods -A -o wide --field-selector ${q(`spec.nodeName=${nodeName}`)}`,
  );
}

/** Capture the pods the offline capture left out, as JSON for the next scan. */
function capturePodsStep(nodeName: string): string {
  return commandStep(
    'the capture holds none of the pods on this node: capture them and scan again',
    `kubectl get pods -A -o json --field-selector ${q(`spec.nodeName=${nodeName}`)} > pods-on-node.json`,
  );
}

function eventsStep(t: StepTarget): string[] {
  return t.nodeName
    ? [
        commandStep(
          "Karpenter's events for the node (FailedDraining, AwaitingVolumeDetachment, ...)",
          `kubectl get events -A --field-selector ${q(`involvedObject.name=${t.nodeName}`)}`,
        ),
      ]
    : [];
}

/** The NodePool merge patch that bounds every later drain: pods left after it are deleted regardless. */
function gracePeriodStep(t: StepTarget): string[] {
  if (t.hasDeadline || !t.pool) return [];
  return [
    commandStep(
      'bound future drains: after terminationGracePeriod Karpenter deletes the pods left, PDBs and do-not-disrupt notwithstanding (NodeClaims launched from now on get it; this one keeps what it was launched with)',
      terminationGracePeriodPatch(t.pool, '--type merge'),
    ),
  ];
}

/** The PDB steps shared with DISRUPTION_BLOCKED, then the NodePool's terminationGracePeriod. */
export function pdbSteps(blocks: readonly PdbBlock[], t: StepTarget): string[] {
  return [...blockingPdbSteps(blocks), ...gracePeriodStep(t)];
}

export function multiplePdbSteps(items: readonly MultiplePdbs[], t: StepTarget): string[] {
  return [...sharedMultiplePdbSteps(items), ...gracePeriodStep(t)];
}

export function doNotDisruptSteps(items: readonly DoNotDisrupt[], t: StepTarget): string[] {
  const steps = items.slice(0, 5).flatMap(({ pod }) => {
    const ns = pod.metadata?.namespace ?? 'default';
    const name = pod.metadata?.name ?? '?';
    return [
      commandStep(
        `once pod ${ns}/${name} may go, remove the annotation: Karpenter then evicts it (if its workload's pod template sets it, change it there too)`,
        removeDoNotDisrupt('pod', name, ns),
      ),
      commandStep(
        'or time-box it (Karpenter v1.12+): the protection ends that long after the pod started',
        `kubectl annotate pod -n ${q(ns)} ${q(name)} --overwrite ${DO_NOT_DISRUPT_ANNOTATION}=1h`,
      ),
    ];
  });
  return [...steps, ...gracePeriodStep(t)];
}

export function volumeSteps(attachments: readonly VolumeAttachment[], t: StepTarget): string[] {
  const names = attachments.slice(0, 10).map((va) => va.metadata?.name ?? '?');
  const pvs = [...new Set(attachments.flatMap((va) => va.spec?.source?.persistentVolumeName ?? []))].slice(0, 10);
  const attachers = new Set(attachments.map((va) => va.spec?.attacher ?? ''));
  return [
    commandStep(
      'the VolumeAttachments Karpenter waits on (their detachError says why the detach fails)',
      `kubectl get volumeattachment ${shellWords(names)} -o yaml`,
    ),
    ...(pvs.length ? [commandStep('their PersistentVolumes and claims', `kubectl get pv ${shellWords(pvs)} -o wide`)] : []),
    ...(attachers.has('ebs.csi.aws.com')
      ? [
          commandStep(
            "the EBS CSI driver's attacher: why the detach does not finish",
            'kubectl logs -n kube-system deployment/ebs-csi-controller -c csi-attacher --tail=100',
          ),
        ]
      : []),
    ...[...attachers]
      .filter((a) => a !== '' && a !== 'ebs.csi.aws.com')
      .map((a) =>
        commandStep(`the CSI driver ${a}: find its controller pods and read their logs`, `kubectl get csidriver ${q(a)} -o yaml`),
      ),
    ...(t.instanceId
      ? [
          commandStep(
            'the volumes EC2 still has attached to the instance',
            `aws ec2 describe-volumes --filters ${q(`Name=attachment.instance-id,Values=${t.instanceId}`)} --query 'Volumes[].{id:VolumeId,state:Attachments[0].State}'${regionFlag(t.region)}`,
          ),
        ]
      : []),
    ...gracePeriodStep(t),
  ];
}

export function controllerSteps(t: StepTarget): string[] {
  const check = t.instanceId
    ? commandStep(
        'FIRST: check the instance is terminated (or gone); only then may the finalizers below be removed, or the instance runs on with nothing to terminate it',
        `aws ec2 describe-instances --instance-ids ${q(t.instanceId)} --query 'Reservations[].Instances[].State.Name' --output text${regionFlag(t.region)}`,
      )
    : t.claimName
      ? commandStep(
          "FIRST: find the NodeClaim's instance (status.providerID) and check in EC2 it is terminated; only then may the finalizers below be removed",
          `kubectl get nodeclaim ${q(t.claimName)} -o jsonpath='{.status.providerID}'`,
        )
      : commandStep(
          "FIRST: find the Node's instance (spec.providerID) and check in EC2 it is terminated; only then may the finalizers below be removed",
          `kubectl get node ${q(t.nodeName ?? '?')} -o jsonpath='{.spec.providerID}'`,
        );
  const c = t.controller;
  const restore = c
    ? c.scaledToZero
      ? [
          commandStep(
            'the real fix: bring the controller back and it finishes the termination itself (if Helm or GitOps owns it, set replicas there)',
            `kubectl scale deployment -n ${q(c.namespace)} ${q(c.deployment)} --replicas=2`,
          ),
        ]
      : [
          commandStep(
            'the real fix: get a controller replica Ready; why are they not',
            `kubectl get pods -n ${q(c.namespace)} -l app.kubernetes.io/name=karpenter -o wide`,
          ),
          `kubectl logs -n ${q(c.namespace)} ${q(`deployment/${c.deployment}`)} --tail=100`,
        ]
    : [
        commandStep(
          'the real fix: reinstall or restore the controller',
          'kubectl get deployments -A -l app.kubernetes.io/name=karpenter',
        ),
      ];
  const release = [
    ...(t.claimName
      ? [
          commandStep(
            'only if the first step printed terminated (or nothing) and the controller cannot come back: release the NodeClaim',
            `kubectl patch nodeclaim ${q(t.claimName)} --type merge -p ${shellJson({ metadata: { finalizers: null } })}`,
          ),
        ]
      : []),
    ...(t.nodeName
      ? [
          commandStep(
            'and the Node, under the same condition',
            `kubectl patch node ${q(t.nodeName)} --type merge -p ${shellJson({ metadata: { finalizers: null } })}`,
          ),
        ]
      : []),
  ];
  return [check, ...restore, ...release];
}

/** The controller's log and, without a deadline, the NodePool's terminationGracePeriod: how every step list ends. */
export function closingSteps(t: StepTarget): string[] {
  const ns = t.controller?.namespace ?? 'karpenter';
  const deployment = t.controller?.deployment ?? 'karpenter';
  return [
    commandStep("the controller's word on it", `kubectl logs -n ${q(ns)} ${q(`deployment/${deployment}`)} --tail=200`),
    ...gracePeriodStep(t),
  ];
}

export function unknownSteps(t: StepTarget, podsCaptured: boolean): string[] {
  return [
    ...(t.nodeName ? [podsCaptured ? podsOnNodeStep(t.nodeName) : capturePodsStep(t.nodeName)] : []),
    ...(t.nodeName && !podsCaptured
      ? [commandStep('and the budgets that may select them', 'kubectl get pdb -A -o json > pdb.json')]
      : []),
    ...eventsStep(t),
    ...(t.claimName
      ? [
          commandStep(
            'the NodeClaim and its conditions (Drained, VolumesDetached, InstanceTerminating)',
            `kubectl get nodeclaim ${q(t.claimName)} -o yaml`,
          ),
        ]
      : []),
    ...closingSteps(t),
  ];
}
