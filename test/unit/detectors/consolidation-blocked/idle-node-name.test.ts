import { describe, expect, it } from 'vitest';
import { idleNodeName, type IdleNode } from '../../../../src/detectors/consolidation-blocked/idle-nodes.ts';

function idle(names: { nodeName?: string; claimName?: string }): IdleNode {
  return {
    claimName: names.claimName,
    claim: undefined,
    node: undefined,
    nodeName: names.nodeName,
    since: 0,
    basis: 'consolidatable',
    workloadPods: [],
  };
}

describe('idleNodeName: how every CONSOLIDATION_BLOCKED text names a node', () => {
  it('its Node first, else its NodeClaim (a claim whose Node is unknown), else ?', () => {
    expect(idleNodeName(idle({ nodeName: 'ip-10-0-1-5.ec2.internal', claimName: 'default-kb85v' }))).toBe(
      'ip-10-0-1-5.ec2.internal',
    );
    expect(idleNodeName(idle({ claimName: 'default-kb85v' }))).toBe('default-kb85v');
    expect(idleNodeName(idle({}))).toBe('?');
  });
});
