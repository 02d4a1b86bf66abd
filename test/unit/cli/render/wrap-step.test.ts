/**
 * One rule says which one-line steps are commands: the table prints them whole (wrapped, they no
 * longer paste) and chat shows them as code; every other one-line step is prose to both.
 */
import { describe, expect, it } from 'vitest';
import { wrapStep } from '../../../../src/cli/render/wrap-step.ts';
import { stepMarkdown } from '../../../../src/domain/chat-notification.ts';

const WIDTH = 40;
const COMMANDS = [
  'kubectl rollout restart deployment -n karpenter karpenter',
  'vpc=$(aws eks describe-cluster --name prod --query cluster.resourcesVpcConfig.vpcId --output text)',
  'curl -sS https://karpenter.example.internal:8080/metrics | grep karpenter_nodeclaims',
  'terraform state rm aws_iam_role.karpenter_node_role_of_the_cluster',
];
const PROSE = ['Check that the Karpenter controller is running before the next interruption.'];

describe('a one-line step', () => {
  it.each(COMMANDS)('%s: a command to both, kept whole by the table and code in chat', (step) => {
    expect(wrapStep(step, '  1. ', '     ', WIDTH)).toEqual([`  1. ${step}`]);
    expect(stepMarkdown(step)).toBe(`\`${step}\``);
  });

  it.each(PROSE)('%s: prose to both, wrapped by the table and a paragraph in chat', (step) => {
    expect(wrapStep(step, '  1. ', '     ', WIDTH).length).toBeGreaterThan(1);
    expect(stepMarkdown(step)).not.toMatch(/^`/);
  });
});
