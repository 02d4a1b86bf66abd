import type { FargateProfile } from '../../domain/aws.ts';
import { commandStep, manualRemediation, proposedAction, type Remediation } from '../../domain/finding.ts';
import type { Taint, Toleration } from '../../domain/kube.ts';
import type { ControllerDiagnosis, ControllerEnv } from './controller-diagnosis.ts';
import { isUsable } from './controller-nodes.ts';
import { nodesRejectedFor } from '../scheduling/scheduler-messages.ts';
import { isCandidate, type NodeFit } from '../scheduling/scheduling.ts';
import { shellJson, shellQuote, shellWords } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { helmUpgrade, karpenterRelease, versionNote, type KarpenterRelease } from '../karpenter/helm.ts';

/**
 * The fix for each cause of a Pending Karpenter controller, as commands filled with the cluster's
 * own names. Only a restart is proposed for automation; everything else changes infrastructure or
 * Helm values and is left to a human.
 */

export function controllerRemediation(d: ControllerDiagnosis, env: ControllerEnv, clusterName: string): Remediation {
  const { namespace: ns, deploymentName: name } = env;
  const restart = `kubectl rollout restart deployment -n ${shellQuote(ns)} ${shellQuote(name)}`;
  const podName = d.pod.metadata?.name ?? '';
  const describePod = `kubectl describe pod -n ${shellQuote(ns)} ${shellQuote(podName)}`;
  switch (d.cause) {
    case 'FARGATE_SCHEDULER_RACE':
    case 'STALE_SCHEDULING':
      return proposedAction('ROLLOUT_RESTART', [restart]);
    case 'FARGATE_PROFILE_NOT_ACTIVE':
      return manualRemediation(
        d.selectingProfiles
          .flatMap((p) => notActiveSteps(p, clusterName, ns))
          .concat(commandStep('then restart, so the pods are created again under the ACTIVE profile', restart)),
      );
    case 'NO_FARGATE_PROFILE_MATCH':
      return manualRemediation(noProfileSteps(env, clusterName, restart));
    case 'ANTI_AFFINITY_TOO_FEW_NODES':
      return manualRemediation(antiAffinitySteps(d, env, clusterName));
    case 'UNTOLERATED_TAINT':
      return manualRemediation(taintSteps(d, env, clusterName));
    case 'NODE_SELECTOR_MISMATCH':
      return manualRemediation(selectorSteps(d, env));
    case 'UNKNOWN':
      return manualRemediation(unknownSteps(d, env, clusterName, describePod));
  }
}

function describeProfile(clusterName: string, profile: string): string {
  return `aws eks describe-fargate-profile --cluster-name ${shellQuote(clusterName)} --fargate-profile-name ${shellQuote(profile)}`;
}

function createProfileCommand(
  clusterName: string,
  profileName: string,
  template: FargateProfile | undefined,
  selector: string,
): string {
  const role = shellQuote(template?.podExecutionRoleArn ?? '<Fargate pod execution role ARN>');
  const subnets = template?.subnets?.length ? ` --subnets ${shellWords(template.subnets)}` : '';
  return `aws eks create-fargate-profile --cluster-name ${shellQuote(clusterName)} --fargate-profile-name ${shellQuote(profileName)} --pod-execution-role-arn ${role}${subnets} --selectors ${shellQuote(selector)}`;
}

function notActiveSteps(profile: FargateProfile, clusterName: string, ns: string): string[] {
  const describe = `${describeProfile(clusterName, profile.name)} --query 'fargateProfile.[status,health]'`;
  switch (profile.status) {
    case 'CREATING':
      return [
        describe,
        `aws eks wait fargate-profile-active --cluster-name ${shellQuote(clusterName)} --fargate-profile-name ${shellQuote(profile.name)}`,
      ];
    case 'CREATE_FAILED':
      return [
        describe,
        commandStep(
          'fix what health.issues reports (subnets must be private, the pod execution role must trust eks-fargate-pods.amazonaws.com), then recreate it',
          `aws eks delete-fargate-profile --cluster-name ${shellQuote(clusterName)} --fargate-profile-name ${shellQuote(profile.name)}`,
        ),
        createProfileCommand(clusterName, profile.name, profile, `namespace=${ns}`),
      ];
    default:
      return [describe, createProfileCommand(clusterName, `${profile.name}-new`, profile, `namespace=${ns}`)];
  }
}

function noProfileSteps(env: ControllerEnv, clusterName: string, restart: string): string[] {
  const profiles = env.snapshot.fargateProfiles;
  const template = profiles.find((p) => p.podExecutionRoleArn) ?? profiles[0];
  const taken = new Set(profiles.map((p) => p.name));
  const profileName = taken.has('karpenter') ? `karpenter-${env.namespace}` : 'karpenter';
  return [
    createProfileCommand(clusterName, profileName, template, `namespace=${env.namespace}`),
    `aws eks wait fargate-profile-active --cluster-name ${shellQuote(clusterName)} --fargate-profile-name ${shellQuote(profileName)}`,
    commandStep('then restart, since pods created before the profile was ACTIVE keep default-scheduler', restart),
    ...profiles.map(
      (p) =>
        `or run the controller where profile ${visibleLine(p.name)} selects it: ${p.selectors.map((s) => `namespace ${visibleLine(s.namespace ?? '?')}${Object.keys(s.labels ?? {}).length ? ` with labels ${JSON.stringify(s.labels)}` : ''}`).join(' or ')}`,
    ),
  ];
}

function antiAffinitySteps(d: ControllerDiagnosis, env: ControllerEnv, clusterName: string): string[] {
  const candidates = d.fits.filter(isCandidate);
  const eligible = candidates.length || Math.max(1, nodesRejectedFor(d.scheduler, 'anti-affinity'));
  const replicas =
    env.deployment?.spec?.replicas ?? env.controllerPods.filter((p) => p.metadata?.namespace === env.namespace).length;
  const steps = [
    `kubectl scale deployment -n ${shellQuote(env.namespace)} ${shellQuote(env.deploymentName)} --replicas=${eligible}`,
    commandStep(`keep it across upgrades${versionNote(releaseOf(env))}`, helmUpgrade(releaseOf(env), [`replicas=${eligible}`])),
  ];
  const nodeGroups = [
    ...new Set(candidates.map((f) => f.node.metadata?.labels?.['eks.amazonaws.com/nodegroup']).filter((g): g is string => !!g)),
  ];
  for (const group of nodeGroups) {
    steps.push(
      commandStep(
        `or keep ${replicas} replicas and give each its own node (raise maxSize too if it is lower)`,
        `aws eks update-nodegroup-config --cluster-name ${shellQuote(clusterName)} --nodegroup-name ${shellQuote(group)} --scaling-config minSize=${replicas},desiredSize=${replicas}`,
      ),
    );
  }
  if (nodeGroups.length === 0)
    steps.push(
      `or keep ${replicas} replicas and add node(s) to the system node group so it has at least ${replicas} eligible nodes`,
    );
  return steps;
}

/** Tolerations the scheduler adds to every pod; they need not be repeated in the Deployment. */
function isDefaultToleration(t: Toleration): boolean {
  return (t.key === 'node.kubernetes.io/not-ready' || t.key === 'node.kubernetes.io/unreachable') && t.effect === 'NoExecute';
}

function tolerationFor(taint: Taint): Toleration {
  return taint.value
    ? { key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect }
    : { key: taint.key, operator: 'Exists', effect: taint.effect };
}

function blockingTaints(fits: NodeFit[]): Taint[] {
  const seen = new Map<string, Taint>();
  for (const f of fits)
    for (const x of f.failures) if (x.taint) seen.set(`${x.taint.key}=${x.taint.value ?? ''}:${x.taint.effect}`, x.taint);
  return [...seen.values()];
}

function taintSteps(d: ControllerDiagnosis, env: ControllerEnv, clusterName: string): string[] {
  const fromMessage = d.scheduler.reasons.find((r) => r.kind === 'taint' && r.taint)?.taint;
  const taints = blockingTaints(d.fits);
  if (taints.length === 0 && fromMessage) taints.push({ key: fromMessage.key, value: fromMessage.value, effect: 'NoSchedule' });
  const current = (env.deployment?.spec?.template?.spec?.tolerations ?? d.pod.spec?.tolerations ?? []).filter(
    (t) => !isDefaultToleration(t),
  );
  const added = taints.map(tolerationFor);
  const all = [...current, ...added];
  const patch = shellJson({ spec: { template: { spec: { tolerations: all } } } });
  const steps = [
    commandStep(
      `add the toleration(s) to the chart's values and upgrade${versionNote(releaseOf(env))}`,
      helmUpgrade(releaseOf(env), [`tolerations=${JSON.stringify(all)}`], '--set-json'),
    ),
    commandStep(
      'or patch the Deployment now (Helm will revert it on the next upgrade)',
      `kubectl patch deployment -n ${shellQuote(env.namespace)} ${shellQuote(env.deploymentName)} --type=merge -p ${patch}`,
    ),
  ];
  if (taints.length === 0)
    steps.unshift(commandStep('find the taint', 'kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints'));
  // Only Fargate nodes, each running its one pod: the toleration helps once a profile gives the pods nodes of their own.
  if (!env.snapshot.captured.has('fargateprofiles') && d.fits.length > 0 && d.fits.every((f) => !isUsable(f)))
    steps.unshift(
      commandStep(
        `every node is a Fargate node: the Fargate profiles; the toleration below is the fix when one selects namespace ${env.namespace}; without such a profile the pods also need a place to run (a profile for that namespace, or a node group Karpenter does not manage)`,
        `aws eks list-fargate-profiles --cluster-name ${shellQuote(clusterName)}`,
      ),
    );
  return steps;
}

function selectorSteps(d: ControllerDiagnosis, env: ControllerEnv): string[] {
  const nodeSelector = d.pod.spec?.nodeSelector ?? {};
  const usable = d.fits.filter(isUsable);
  const steps: string[] = [];
  const missing = [
    ...new Set(
      usable.flatMap((f) => f.failures.filter((x) => x.kind === 'node-selector' && x.label).map((x) => x.label as string)),
    ),
  ];
  const keys = missing.length ? missing : Object.keys(nodeSelector);
  for (const key of keys) {
    const want = nodeSelector[key];
    if (want === undefined) continue;
    const lacking = usable.filter((f) => f.node.metadata?.labels?.[key] !== want).map((f) => f.name);
    if (lacking.length)
      steps.push(
        commandStep(
          `label the node(s) meant for Karpenter (${lacking.slice(0, 5).join(', ')} lack it)`,
          `kubectl label node ${shellQuote(lacking[0] ?? '<node>')} ${shellQuote(`${key}=${want}`)}`,
        ),
      );
    else steps.push(commandStep('label a node meant for Karpenter', `kubectl label node <node> ${shellQuote(`${key}=${want}`)}`));
    steps.push(
      commandStep(
        "or drop the selector (and remove it from the chart's nodeSelector value)",
        `kubectl patch deployment -n ${shellQuote(env.namespace)} ${shellQuote(env.deploymentName)} --type=json -p ${shellJson([{ op: 'remove', path: `/spec/template/spec/nodeSelector/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` }])}`,
      ),
    );
  }
  const affinity = [...new Set(usable.flatMap((f) => f.failures.filter((x) => x.kind === 'node-affinity').map((x) => x.detail)))];
  for (const a of affinity)
    steps.push(`the Deployment's ${visibleLine(a)} on every node: relabel a node or change affinity in the chart values`);
  if (steps.length === 0)
    steps.push(
      commandStep("compare the Deployment's nodeSelector/affinity with the node labels", 'kubectl get nodes --show-labels'),
    );
  return steps;
}

function unknownSteps(d: ControllerDiagnosis, env: ControllerEnv, clusterName: string, describePod: string): string[] {
  const profiles = d.selectingProfiles.length ? d.selectingProfiles : env.snapshot.fargateProfiles;
  switch (d.unknownKind) {
    case 'fargate-stuck': {
      const subnets = [...new Set(profiles.flatMap((p) => p.subnets ?? []))];
      const steps = profiles.map(
        (p) => `${describeProfile(clusterName, p.name)} --query 'fargateProfile.[status,subnets,health]'`,
      );
      if (steps.length === 0) steps.push(`aws eks list-fargate-profiles --cluster-name ${shellQuote(clusterName)}`);
      steps.push(
        subnets.length
          ? commandStep(
              'check the subnets are private and route 0.0.0.0/0 to a NAT gateway',
              `aws ec2 describe-route-tables --filters ${shellQuote(`Name=association.subnet-id,Values=${subnets.join(',')}`)} --query 'RouteTables[*].Routes'`,
            )
          : commandStep(
              "check the profile's subnets (see describe-fargate-profile) are private and route 0.0.0.0/0 to a NAT gateway",
              `aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=<profile-subnet-ids> --query 'RouteTables[*].Routes'`,
            ),
      );
      steps.push(describePod);
      return steps;
    }
    case 'no-nodes': {
      const found = env.snapshot.fargateProfiles.find((p) => p.subnets?.length)?.subnets;
      const subnets = found ? shellWords(found) : '<private-subnet-ids>';
      // Profiles not captured are not profiles missing: look before creating one that may exist.
      if (!env.snapshot.captured.has('fargateprofiles')) {
        return [
          commandStep(
            `Fargate profiles were not captured: list them first; if one selects namespace ${env.namespace}, this is a Fargate problem (describe that profile), not a missing place to run`,
            `aws eks list-fargate-profiles --cluster-name ${shellQuote(clusterName)}`,
          ),
          commandStep(
            'if none does, give Karpenter somewhere to run: a small managed node group it does not manage',
            `aws eks create-nodegroup --cluster-name ${shellQuote(clusterName)} --nodegroup-name system --node-role <node-role-arn> --subnets ${subnets} --scaling-config minSize=2,maxSize=3,desiredSize=2`,
          ),
          commandStep(
            `or, if none does, a Fargate profile for namespace ${env.namespace}`,
            createProfileCommand(clusterName, 'karpenter', undefined, `namespace=${env.namespace}`),
          ),
          describePod,
        ];
      }
      return [
        commandStep(
          'give Karpenter somewhere to run: a small managed node group it does not manage',
          `aws eks create-nodegroup --cluster-name ${shellQuote(clusterName)} --nodegroup-name system --node-role <node-role-arn> --subnets ${subnets} --scaling-config minSize=2,maxSize=3,desiredSize=2`,
        ),
        commandStep(
          'or a Fargate profile for its namespace',
          createProfileCommand(clusterName, 'karpenter', env.snapshot.fargateProfiles[0], `namespace=${env.namespace}`),
        ),
        describePod,
      ];
    }
    case 'insufficient-resources':
      return [
        ...d.fits
          .filter(isCandidate)
          .slice(0, 3)
          .map((f) => `kubectl describe node ${shellQuote(f.name)}`),
        `lower the controller's requests (chart values controller.resources.requests) or use larger system nodes`,
        describePod,
      ];
    default:
      return [
        describePod,
        `kubectl get events -n ${shellQuote(env.namespace)} --field-selector ${shellQuote(`involvedObject.name=${d.pod.metadata?.name ?? ''}`)}`,
      ];
  }
}

/** The controller's Helm release, from its Deployment's or pods' labels. */
function releaseOf(env: ControllerEnv): KarpenterRelease {
  return karpenterRelease({ namespace: env.namespace, deployment: env.deployment, pods: [...env.controllerPods] });
}
