import type { Condition, NodeClaim } from '../../domain/kube.ts';
import { ageMs, conditionOf, instanceIdFromProviderID, isoSeconds } from '../../domain/kube-helpers.ts';
import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import { formatDuration } from '../../domain/settings.ts';
import type { DetectContext, Detector } from '../detector.ts';
import { isLaunchFailureCondition } from '../cloud-errors/cloud-errors.ts';
import { regionOf } from '../aws-iam/iam-arn.ts';
import { resolveNodeRole } from './node-role.ts';
import { judgeNodeRoleMapping } from './node-role-mapping.ts';
import { describeCondition } from '../karpenter/readiness.ts';
import { diagnoseSteps, instanceStateSteps, notRunning } from './registration-steps.ts';
import { privateEndpointChecks } from './private-endpoint.ts';
import { nodePoolOfClaim } from '../../domain/tags.ts';
import { isAutoModeRef } from '../../domain/auto-mode.ts';
import { shellQuote } from '../../domain/shell.ts';
import { costOf, type FindingCost, type PriceBook, type PricedInstance } from '../../domain/cost.ts';
import { billed, pricedClaim } from '../karpenter/priced-instances.ts';

type Code = 'NODECLAIM_NOT_REGISTERED';

/** A NodeClaim whose instance launched but whose Node never appeared. */
interface Stuck {
  name: string;
  instanceId: string | undefined;
  zone: string | undefined;
  nodeClass: string | undefined;
  /** Launched by EKS Auto Mode for an `eks.amazonaws.com` NodeClass. */
  autoMode: boolean;
  launchedAt: string;
  ageMs: number;
  registered: Condition | undefined;
  /** What its instance bills; undefined when the captured instance does not run. */
  priced: PricedInstance | undefined;
}

interface PoolGroup {
  pool: string | undefined;
  stuck: Stuck[];
  /** `NodeRegistrationHealthy=False` for a registration (not launch) failure. */
  health: Condition | undefined;
}

const RELAUNCH =
  'Karpenter deletes a NodeClaim that has not registered 15 minutes after launch and launches a new instance, so it keeps launching (and paying for) instances until this is fixed.';

export const nodeClaimNotRegistered: Detector<Code> = {
  code: 'NODECLAIM_NOT_REGISTERED',
  requires: [],
  anyOf: ['nodeclaims', 'nodepools'],
  refinedBy: ['nodes', 'ec2nodeclasses', 'configmaps', 'cluster', 'accessentries', 'instances', 'instanceprofiles'],
  detect(ctx) {
    return [...groupByPool(ctx).values()].map((g) => findingFor(ctx, g));
  },
};

function groupByPool(ctx: DetectContext): Map<string, PoolGroup> {
  const groups = new Map<string, PoolGroup>();
  const groupOf = (pool: string | undefined): PoolGroup => {
    const key = pool ?? '';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { pool, stuck: [], health: undefined }));
    return g;
  };
  for (const nc of ctx.snapshot.nodeClaims) {
    const stuck = stuckClaim(ctx, nc);
    if (stuck) groupOf(nodePoolOfClaim(nc)).stuck.push(stuck);
  }
  for (const np of ctx.snapshot.nodePools) {
    const health = conditionOf(np, 'NodeRegistrationHealthy');
    // Karpenter copies a launch failure's reason here too; those are NODECLAIM_LAUNCH_FAILED's.
    if (health?.status === 'False' && !isLaunchFailureCondition(health)) groupOf(np.metadata?.name).health = health;
  }
  return groups;
}

function stuckClaim(ctx: DetectContext, nc: NodeClaim): Stuck | undefined {
  // A Node name settles nearly every NodeClaim of a cluster before its conditions are read.
  if (nc.status?.nodeName) return undefined;
  const launched = conditionOf(nc, 'Launched');
  const registered = conditionOf(nc, 'Registered');
  if (launched?.status !== 'True' || registered?.status === 'True') return undefined;
  // Being deleted (consolidation, a deleted NodePool, or Karpenter's own registration timeout): on its way out.
  if (nc.metadata?.deletionTimestamp) return undefined;
  const instanceId = instanceIdFromProviderID(nc.status?.providerID);
  // A Node carrying the instance exists: it did register, whatever Karpenter has not synced yet.
  if (instanceId && ctx.index.nodesByInstanceId.has(instanceId)) return undefined;
  const launchedAt = launched.lastTransitionTime ?? nc.metadata?.creationTimestamp;
  const age = ageMs(launchedAt, ctx.now);
  if (launchedAt === undefined || age === undefined || age < ctx.settings.registrationMs) return undefined;
  return {
    name: nc.metadata?.name ?? '?',
    instanceId,
    zone: nc.metadata?.labels?.['topology.kubernetes.io/zone'] ?? /^aws:\/\/\/([^/]+)\//.exec(nc.status?.providerID ?? '')?.[1],
    nodeClass: nc.spec?.nodeClassRef?.name,
    autoMode: isAutoModeRef(nc.spec?.nodeClassRef),
    launchedAt,
    ageMs: age,
    registered,
    priced: pricedClaim(ctx.index, nc, undefined),
  };
}

function findingFor(ctx: DetectContext, g: PoolGroup): Finding<Code> {
  const s = ctx.snapshot;
  const pool = g.pool ? ctx.index.nodePoolsByName.get(g.pool) : undefined;
  const nodeClass = pool?.spec?.template?.spec?.nodeClassRef?.name ?? g.stuck.find((c) => c.nodeClass)?.nodeClass;
  const instanceIds = g.stuck.flatMap((c) => (c.instanceId ? [c.instanceId] : []));
  const region = regionOf({ clusterArn: s.cluster?.arn, zone: g.stuck.find((c) => c.zone)?.zone });
  const claimNames = g.stuck.map((c) => c.name);
  const evidence = [...claimEvidence(g), ...healthEvidence(g)];
  const endpointKnown = s.cluster?.endpointPublicAccess !== undefined;
  const diagnose = diagnoseSteps(s.clusterName, claimNames, instanceIds, region, endpointKnown);
  const explained = withPrivateEndpoint(explain(ctx, g, nodeClass, instanceIds, region, evidence), ctx, region, evidence);
  const since = [...g.stuck.map((c) => c.launchedAt), g.health?.lastTransitionTime]
    .filter((t): t is string => t !== undefined)
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  const where = g.pool ? `NodePool ${g.pool}` : 'NodeClaims without a NodePool';
  const title =
    g.stuck.length > 0
      ? `${g.stuck.length} NodeClaim${g.stuck.length > 1 ? 's' : ''} of ${where} launched but never registered a Node`
      : `${where} reports NodeRegistrationHealthy=False: its nodes fail to register`;
  return newFinding({
    code: 'NODECLAIM_NOT_REGISTERED',
    severity: 'critical',
    title,
    resource: g.pool ? { kind: 'NodePool', name: g.pool } : { kind: 'Cluster', name: s.clusterName },
    since: isoSeconds(since),
    cause: { code: explained.cause, detail: explained.detail },
    evidence,
    remediation: manualRemediation(explained.cause === 'UNKNOWN' ? [...explained.steps, ...diagnose] : explained.steps),
    // From NodeRegistrationHealthy=False alone (the claims already deleted, relaunching) it counts as
    // one, so the metric does not drop to 0 in the middle of the relaunch loop.
    counts: { objects: Math.max(1, g.stuck.length), ...(g.pool ? { nodePool: g.pool } : {}) },
    cost: relaunchCost(ctx.prices, g.stuck),
  });
}

/**
 * What the relaunch loop bills (docs/cost.md): each stuck NodeClaim's instance runs until the
 * 15-minute registration timeout deletes it, and the pods still pending make Karpenter launch the
 * next one, so about one instance of its type runs per stuck NodeClaim at any time. From
 * NodeRegistrationHealthy=False alone no instance is known: no cost.
 */
function relaunchCost(prices: PriceBook, stuck: readonly Stuck[]): FindingCost | undefined {
  const cost = costOf(prices, billed(stuck.map((c) => c.priced)));
  if (!cost) return undefined;
  return {
    perDayUsd: cost.perDayUsd,
    basis: `${cost.basis}; each NodeClaim is relaunched every 15 minutes, so about one such instance runs per stuck NodeClaim`,
  };
}

interface Explained {
  cause: 'NODE_ROLE_NOT_MAPPED' | 'NODE_ROLE_MAPPING_INVALID' | 'INSTANCE_NOT_RUNNING' | 'UNKNOWN';
  detail: string;
  steps: string[];
}

function explain(
  ctx: DetectContext,
  g: PoolGroup,
  nodeClass: string | undefined,
  instanceIds: string[],
  region: string | undefined,
  evidence: string[],
): Explained {
  const down = notRunning(ctx, g.stuck);
  if (down) {
    evidence.push(...down.evidence);
    return {
      cause: 'INSTANCE_NOT_RUNNING',
      detail: `The instances behind these NodeClaims are not running (${down.summary}), so no kubelet is left to register. Karpenter deletes each NodeClaim 15 minutes after launch and launches a replacement.`,
      steps: instanceStateSteps(
        ctx.snapshot.clusterName,
        g.stuck.map((c) => c.name),
        instanceIds,
        region,
      ),
    };
  }
  const pool = g.pool ? ctx.index.nodePoolsByName.get(g.pool) : undefined;
  const autoMode = isAutoModeRef(pool?.spec?.template?.spec?.nodeClassRef) || g.stuck.some((c) => c.autoMode);
  const { role, gaps } = resolveNodeRole(ctx, nodeClass, instanceIds, autoMode);
  if (!role) {
    evidence.push(...gaps);
    const resource = autoMode ? 'nodeclasses.eks.amazonaws.com' : 'ec2nodeclass';
    return {
      cause: 'UNKNOWN',
      detail: `Could not tell which IAM role the nodes use (${gaps.join('; ') || 'no EC2NodeClass or instance profile captured'}), so the aws-auth / access entry mapping was not checked. ${RELAUNCH}`,
      steps: [
        nodeClass ? `kubectl get ${resource} ${shellQuote(nodeClass)} -o yaml` : `kubectl get ${resource} -o yaml`,
        'aws iam list-instance-profiles',
        'kubectl get configmap aws-auth -n kube-system -o yaml',
      ],
    };
  }
  const shown = role.arn ?? role.name;
  evidence.push(`node role ${shown} (${role.source})`, ...gaps);
  const verdict = judgeNodeRoleMapping(ctx, role, region);
  evidence.push(...verdict.evidence);
  switch (verdict.cause) {
    case 'NODE_ROLE_NOT_MAPPED':
      return {
        cause: verdict.cause,
        detail: `Node role ${shown} is not mapped ${verdict.modeText}, so the API server rejects the kubelet and the Node never registers. ${RELAUNCH}`,
        steps: verdict.steps,
      };
    case 'NODE_ROLE_MAPPING_INVALID':
      return {
        cause: verdict.cause,
        detail: `Node role ${shown} has a mapping that cannot work: ${verdict.problems.join('; ')}. The API server rejects the kubelet and the Node never registers. ${RELAUNCH}`,
        steps: verdict.steps,
      };
    default:
      return {
        cause: 'UNKNOWN',
        detail: verdict.mapped
          ? `Node role ${shown} is mapped ${verdict.modeText}, so registration fails on the instance: bootstrap (user data, AMI), reachability of the API endpoint, or security groups. ${RELAUNCH}`
          : `The mapping of node role ${shown} could not be checked from what was captured. ${RELAUNCH}`,
        steps: verdict.steps,
      };
  }
}

/**
 * An UNKNOWN cause on a cluster whose endpoint is private only: what that implies leads the detail
 * and the steps (private-endpoint.ts). A proven cause (the role not mapped, the instances gone)
 * stays as it is.
 */
function withPrivateEndpoint(
  explained: Explained,
  ctx: DetectContext,
  region: string | undefined,
  evidence: string[],
): Explained {
  if (explained.cause !== 'UNKNOWN') return explained;
  const privateOnly = privateEndpointChecks(ctx.snapshot.cluster, ctx.snapshot.clusterName, region);
  if (!privateOnly) return explained;
  evidence.push(...privateOnly.evidence);
  return {
    cause: 'UNKNOWN',
    detail: `${privateOnly.why} ${explained.detail}`,
    steps: [...privateOnly.steps, ...explained.steps],
  };
}

const MAX_LISTED = 10;

function claimEvidence(g: PoolGroup): string[] {
  const lines = g.stuck.slice(0, MAX_LISTED).map((c) => {
    const r = c.registered;
    const state = r
      ? `Registered=${r.status}${r.reason ? ` ${r.reason}` : ''}${r.message ? `: ${r.message}` : ''}`
      : 'no Registered condition';
    return `NodeClaim ${c.name}: instance ${c.instanceId ?? '(no providerID)'} launched ${formatDuration(c.ageMs)} ago, not registered (${state})`;
  });
  if (g.stuck.length > MAX_LISTED) lines.push(`... and ${g.stuck.length - MAX_LISTED} more NodeClaims`);
  return lines;
}

function healthEvidence(g: PoolGroup): string[] {
  const h = g.health;
  if (!h) return [];
  // Only a False NodeRegistrationHealthy gets here, so this reads `NodeRegistrationHealthy=False (reason: message)`.
  return [`NodePool ${g.pool}: ${describeCondition(h)} since ${isoSeconds(h.lastTransitionTime) ?? 'unknown'}`];
}
