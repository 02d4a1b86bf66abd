import type { Subnet } from '../../domain/aws.ts';
import { commandStep, manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import { shellQuote } from '../../domain/shell.ts';
import { regionFlag, regionOf } from '../aws-iam/iam-arn.ts';
import { logHeadText, trimError } from '../cloud-errors/cloud-errors.ts';
import type { DetectContext } from '../detector.ts';
import { selectorText, subnetMatches, type ProvisionerSelectorError } from './provisioner-log.ts';
import { knownClusterName } from '../../domain/snapshot.ts';

/**
 * NODECLASS_NOT_READY from a Provisioner-era log line alone (provisioner-log.ts): Karpenter says no
 * subnet or security group matches the Provisioner's selector. The first step is the query
 * Karpenter makes, which tells "nothing carries these tags" from "the controller looks in another
 * region or account"; the captured subnets, when there, decide it already.
 */
export function provisionerLogFinding(ctx: DetectContext, e: ProvisionerSelectorError): Finding<'NODECLASS_NOT_READY'> {
  const who = e.provisioner ? `Provisioner ${e.provisioner}` : 'a Provisioner';
  const quoted = `${e.line.origin}: ${trimError(logHeadText(e.line), 400)}`;
  const region = regionFlag(regionOf({ clusterArn: ctx.snapshot.cluster?.arn, zone: ctx.snapshot.subnets[0]?.availabilityZone }));
  const controller = ctx.index.controllers[0];
  const ns = shellQuote(controller?.namespace ?? 'karpenter');
  const deployment = shellQuote(controller?.deploymentName ?? 'karpenter');
  const provisioner = e.provisioner ? shellQuote(e.provisioner) : 'PROVISIONER';
  const base = {
    code: 'NODECLASS_NOT_READY' as const,
    severity: 'critical' as const,
    resource: { kind: 'Provisioner', ...(e.provisioner ? { name: e.provisioner } : {}) },
    since: e.since,
  };
  if (e.kind === 'security-groups') {
    return newFinding({
      ...base,
      title: `${who}: no security group matches its securityGroupSelector`,
      cause: {
        code: 'SECURITY_GROUPS_NOT_FOUND',
        detail: `Karpenter cannot launch nodes for ${who}: no security group matches its securityGroupSelector. Every criterion of the selector must hold for the same security group (they are ANDed, not alternatives), so one criterion no group meets, a tag missing from the node security group, or a selector meant for another VPC each leave it empty. The log does not print the selector: read it from the Provisioner (or its AWSNodeTemplate).`,
      },
      evidence: [quoted, 'the Provisioner and its AWSNodeTemplate are not read by the scan (alpha API)'],
      remediation: manualRemediation([
        commandStep(
          'the selector: each key is a criterion the same security group must meet',
          `kubectl get provisioner ${provisioner} -o jsonpath='{.spec.provider.securityGroupSelector}{"\\n"}{.spec.providerRef}{"\\n"}'`,
        ),
        commandStep(
          'the security groups that meet every criterion at once, as Karpenter asks (one --filters entry per criterion: Name=tag:KEY,Values=VALUE); empty confirms the selector matches nothing',
          `aws ec2 describe-security-groups${region} --filters 'Name=tag:KEY,Values=VALUE' --query 'SecurityGroups[].[GroupId,GroupName,VpcId]' --output text`,
        ),
        'Then either tag the node security group with every criterion of the selector, or drop the criteria it does not meet, so that at least one security group meets them all.',
      ]),
    });
  }
  const selector = selectorText(e.selector);
  const subnets = ctx.snapshot.captured.has('subnets') ? ctx.snapshot.subnets : undefined;
  const matching = subnets?.filter((s) => subnetMatches(s, e.selector)) ?? [];
  const query = describeSubnets(region, e.selector);
  const evidence = [quoted, ...subnetEvidence(subnets, matching, e.selector)];
  if (matching.length > 0) {
    // The capture shows subnets Karpenter did not find: tagging is not the fix.
    return newFinding({
      ...base,
      title: `${who}: Karpenter found no subnet for ${selector}, yet the capture has ${matching.length}`,
      cause: {
        code: 'UNKNOWN',
        detail: `Karpenter found no subnet matching ${selector} for ${who}, but the captured subnets include ${matching.map((s) => s.id).join(', ')}, which match it: the controller asks another region or account (its AWS_REGION, its role), or the subnets were tagged after the error.`,
      },
      evidence,
      remediation: manualRemediation([
        commandStep(
          'whether the error still recurs (a subnet tagged since is found at the next reconcile)',
          `kubectl logs -n ${ns} deployment/${deployment} --since=30m | grep -F 'no subnets matched'`,
        ),
        commandStep(
          'the region and role the controller uses: Karpenter queries the subnets there',
          `kubectl get deployment -n ${ns} ${deployment} -o jsonpath='{range .spec.template.spec.containers[*].env[*]}{.name}={.value}{"\\n"}{end}' | grep -E 'AWS_REGION|AWS_ROLE_ARN'`,
        ),
        commandStep('the same query in that region', query),
      ]),
    });
  }
  const key = e.selector.find(([k]) => k !== 'aws-ids');
  const tag = key && key[1] !== '*' ? `Key=${key[0]},Value=${key[1]}` : undefined;
  return newFinding({
    ...base,
    title: `${who}: no subnet matches its subnetSelector (${selector})`,
    cause: {
      code: 'SUBNETS_NOT_FOUND',
      detail: `Karpenter cannot launch nodes for ${who}: no subnet matches its subnetSelector ${selector} (every criterion must hold for the same subnet)${subnets ? '; none of the captured subnets carries it' : ''}. The subnets meant for nodes lack the tag, or the selector names tags they do not have.`,
    },
    evidence,
    remediation: manualRemediation([
      commandStep(
        'the subnets Karpenter asks for: empty confirms no subnet carries the tags; subnets listed here mean the controller looks in another region or account (its AWS_REGION, its role)',
        query,
      ),
      commandStep(
        "the cluster's subnets, among which the private ones are those for nodes",
        `aws eks describe-cluster${region} --name ${clusterArg(ctx)} --query cluster.resourcesVpcConfig.subnetIds --output text`,
      ),
      ...(tag
        ? [
            commandStep(
              'tag the private subnets for nodes as the selector asks (SUBNET_IDS: from the step above)',
              `aws ec2 create-tags${region} --resources SUBNET_IDS --tags ${shellQuote(tag)}`,
            ),
          ]
        : []),
      commandStep(
        "or point the selector at tags those subnets do carry (the Provisioner's spec.provider.subnetSelector, or its AWSNodeTemplate's)",
        `kubectl edit provisioner ${provisioner}`,
      ),
    ]),
  });
}

function describeSubnets(region: string, selector: readonly [string, string][]): string {
  const filters = selector.map(([k, v]) =>
    k === 'aws-ids' ? `Name=subnet-id,Values=${v}` : v === '*' ? `Name=tag-key,Values=${k}` : `Name=tag:${k},Values=${v}`,
  );
  return `aws ec2 describe-subnets${region} --filters ${filters.map(shellQuote).join(' ')} --query 'Subnets[].[SubnetId,AvailabilityZone,VpcId]' --output text`;
}

function subnetEvidence(
  subnets: readonly Subnet[] | undefined,
  matching: readonly Subnet[],
  selector: readonly [string, string][],
): string[] {
  if (!subnets) return ['subnets not captured'];
  if (matching.length > 0)
    return [`captured subnets matching ${selectorText(selector)}: ${matching.map((s) => s.id).join(', ')}`];
  const keys = new Set(selector.map(([k]) => k));
  const near = subnets.filter((s) => Object.keys(s.tags).some((k) => keys.has(k)));
  return [
    `none of the ${subnets.length} captured subnet(s) matches ${selectorText(selector)}${near.length ? `; ${near.map((s) => `${s.id} has ${[...keys].map((k) => `${k}=${s.tags[k] ?? '(none)'}`).join(', ')}`).join('; ')}` : '; none carries the key'}`,
  ];
}

/** The cluster's name for a command, or `"$CLUSTER_NAME"` when the capture did not name it. */
function clusterArg(ctx: DetectContext): string {
  const name = knownClusterName(ctx.snapshot);
  return name === undefined ? '"$CLUSTER_NAME"' : shellQuote(name);
}
