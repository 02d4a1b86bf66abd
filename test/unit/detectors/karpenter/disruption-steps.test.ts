import { describe, expect, it } from 'vitest';
import { removeDoNotDisrupt, terminationGracePeriodPatch } from '../../../../src/detectors/karpenter/disruption-steps.ts';

describe('the disruption commands NODE_TERMINATION_STUCK and DISRUPTION_BLOCKED share', () => {
  it("patches the NodePool's terminationGracePeriod in the finding's own spelling of --type", () => {
    expect(terminationGracePeriodPatch('default', '--type merge')).toBe(
      `kubectl patch nodepool default --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`,
    );
    expect(terminationGracePeriodPatch('default', '--type=merge')).toBe(
      `kubectl patch nodepool default --type=merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`,
    );
  });

  it('removes the do-not-disrupt annotation from a pod in its namespace, or from a Node or NodeClaim', () => {
    expect(removeDoNotDisrupt('pod', 'batch-0', 'jobs')).toBe(
      'kubectl annotate pod -n jobs batch-0 karpenter.sh/do-not-disrupt-',
    );
    expect(removeDoNotDisrupt('node', 'ip-10-0-1-2.ec2.internal')).toBe(
      'kubectl annotate node ip-10-0-1-2.ec2.internal karpenter.sh/do-not-disrupt-',
    );
  });

  it('quotes every name from the cluster, so a hostile one stays one word', () => {
    expect(terminationGracePeriodPatch("pool'; rm -rf /", '--type merge')).toContain(
      `nodepool 'pool'\\''; rm -rf /' --type merge`,
    );
    expect(removeDoNotDisrupt('pod', '$(id)', 'ns x')).toBe(
      `kubectl annotate pod -n 'ns x' '$(id)' karpenter.sh/do-not-disrupt-`,
    );
  });
});
