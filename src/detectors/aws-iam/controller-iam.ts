import { commandStep, type ResourceRef } from '../../domain/finding.ts';
import type { DetectContext } from '../detector.ts';
import { parseRoleArn, regionFlag, regionOf } from './iam-arn.ts';
import { shellJson, shellQuote } from '../../domain/shell.ts';

/** The Karpenter controller Deployment, and the service account whose IAM role it runs with. */
export interface ControllerIdentity {
  resource: ResourceRef;
  namespace: string;
  serviceAccount: string;
  /** From the pods' `AWS_ROLE_ARN` (injected for IRSA), when captured. */
  roleArn: string | undefined;
}

export function controllerIdentity(ctx: DetectContext): ControllerIdentity {
  const found = ctx.index.controllers.find((c) => c.deploymentName) ?? ctx.index.controllers[0];
  const namespace = found?.namespace ?? 'karpenter';
  const name = found?.deploymentName ?? 'karpenter';
  const podSpecs = [found?.deployment?.spec?.template?.spec, ...(found?.pods ?? []).map((p) => p.spec)];
  const serviceAccount = podSpecs.map((s) => s?.serviceAccountName).find((n) => n) ?? 'karpenter';
  const roleArn = podSpecs
    .flatMap((s) => s?.containers ?? [])
    .flatMap((c) => c.env ?? [])
    .find((e) => e.name === 'AWS_ROLE_ARN' && e.value)?.value;
  return { resource: { kind: 'Deployment', namespace, name }, namespace, serviceAccount, roleArn };
}

/**
 * Least-privilege form of the denied resource: `arn:aws:iam::1:instance-profile/` → `.../instance-profile/*`,
 * `arn:aws:ec2:r:1:instance/i-0abc` → `.../instance/*`; `*` when the error named none.
 */
export function policyResource(resource: string | undefined): string {
  if (!resource || !resource.startsWith('arn:')) return '*';
  const parts = resource.split(':');
  if (parts.length < 6) return '*';
  const head = parts.slice(0, 5).join(':');
  const tail = parts.slice(5).join(':');
  const slash = tail.indexOf('/');
  return slash >= 0 ? `${head}:${tail.slice(0, slash)}/*` : resource;
}

/** Steps naming (or finding) the controller's IAM role; `roleName` when the data gave it. */
export function findRoleSteps(
  ctx: DetectContext,
  principalRoleArn: string | undefined,
): { steps: string[]; roleName: string | undefined } {
  const id = controllerIdentity(ctx);
  const r = regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn }));
  const roleArn = principalRoleArn ?? id.roleArn;
  const roleName = parseRoleArn(roleArn)?.name;
  const irsa = `kubectl get sa -n ${shellQuote(id.namespace)} ${shellQuote(id.serviceAccount)} -o jsonpath='{.metadata.annotations.eks\\.amazonaws\\.com/role-arn}'`;
  if (roleName)
    return { roleName, steps: [commandStep(`controller role ${roleArn}; confirm it is the one its service account uses`, irsa)] };
  return {
    roleName,
    steps: [
      commandStep('find the controller role (IRSA)', irsa),
      commandStep(
        'or (EKS Pod Identity)',
        `aws eks list-pod-identity-associations --cluster-name ${shellQuote(ctx.snapshot.clusterName)} --namespace ${shellQuote(id.namespace)} --service-account ${shellQuote(id.serviceAccount)}${r}`,
      ),
    ],
  };
}

/**
 * Steps that find the controller's role and add the missing actions to it: only for a denial
 * that nothing allows (aws-iam/denial-steps.ts decides; an SCP, boundary or Deny is not fixed here). The role name is
 * only known when the error message or the pods named it; otherwise the first steps find it.
 */
export function grantSteps(
  ctx: DetectContext,
  input: {
    actions: string[];
    resource: string | undefined;
    principalRoleArn: string | undefined;
  },
): string[] {
  const { steps: find, roleName } = findRoleSteps(ctx, input.principalRoleArn);
  const allow = { Effect: 'Allow', Action: input.actions, Resource: policyResource(input.resource) };
  const statement = JSON.stringify(allow);
  const policyName = `karpenter-sentinel-${input.actions.map((a) => a.replace(/[^A-Za-z0-9]+/g, '-')).join('-')}`.slice(0, 128);
  const document = shellJson({ Version: '2012-10-17', Statement: [allow] });
  return [
    ...find,
    commandStep("add this statement to the controller role's policy (or to the IaC that owns it)", statement),
    `aws iam put-role-policy --role-name ${roleName ? shellQuote(roleName) : '<controller-role-name>'} --policy-name ${shellQuote(policyName)} --policy-document ${document}`,
  ];
}
