/**
 * examples/cleanup-partial-destroy as its README describes it: what a complete cleanup removes, and
 * nothing else. The use case, the CLI, the function and local invoke are all checked against it.
 */
import { fileURLToPath } from 'node:url';

export const CLEANUP_EXAMPLE = fileURLToPath(new URL('../../examples/cleanup-partial-destroy', import.meta.url));
export const CLEANUP_EXAMPLE_CLUSTER = 'platform-eks-dev';

export const RUNNING_WITH_NODECLAIM = 'i-04c1e8a2f6b9d3705';
/** Its launch template (`lt-0a6d3f8b2c9e14705`) Karpenter deleted since: its instance profile (PROFILE_V13) proves it Karpenter's. */
export const STOPPED = 'i-07e3b9d1c5a2f8406';
export const PENDING_ONE_MINUTE_OLD = 'i-09a5d2f7e1c4b6308';
/** `prod-postgres-primary`: only the two tags anyone can write (issue 11). Listed as not proven on every run, never terminated. */
export const FORGED_TAGS = 'i-0f00d5ba5e0b1e7a2';
export const FORGED_NOT_PROVEN = {
  id: FORGED_TAGS,
  reason: 'no aws:ec2launchtemplate:id tag: not launched from a launch template',
};
export const PROFILE_V13 = 'platform-eks-dev_11735620938465729301';
const PROFILE_PRE_V13 = 'platform-eks-dev_8351943279432019856';

/** The result lists of a complete cleanup (and of the dry run before it), sorted as results are. */
export const CLEANED = {
  nodePoolsDeleted: ['ondemand-pool', 'spot-pool'],
  // running, stopped, launched a minute ago; not the node group's (even with a NodePool tag), not staging's
  instancesTerminated: [RUNNING_WITH_NODECLAIM, STOPPED, PENDING_ONE_MINUTE_OLD],
  // tagged for the cluster and a NodePool, but nothing proves Karpenter launched it
  instancesNotProven: [FORGED_NOT_PROVEN],
  // the current eks:eks-cluster-name tag and the pre-1.1 karpenter.k8s.aws/cluster tag; not the node group's template
  launchTemplatesDeleted: ['lt-0c2f8b4e6a1d97305', 'lt-0e7a3c9f1d5b82460'],
  // under /karpenter/eu-central-1/platform-eks-dev/ (1.3+) and the tagged pre-1.3 one at /
  instanceProfilesDeleted: [PROFILE_V13, PROFILE_PRE_V13],
};
