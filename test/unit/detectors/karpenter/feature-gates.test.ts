import { describe, expect, it } from 'vitest';
import { controllerVersionOf, featureGates } from '../../../../src/detectors/karpenter/feature-gates.ts';
import type { Container } from '../../../../src/domain/kube.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { karpenterDeployment, karpenterPod } from '../../../factories/kube.ts';

function infoOf(container: Container, where: 'deployment' | 'pod' = 'deployment') {
  const snapshot =
    where === 'deployment'
      ? snapshotOf({ deployments: [karpenterDeployment({ spec: { containers: [container] } })] })
      : snapshotOf({
          pods: [karpenterPod({ name: 'karpenter-5697769d6c-cdwct', nodeName: 'n', spec: { containers: [container] } })],
        });
  return new SnapshotIndex(snapshot).controllers[0];
}

const gate = (container: Container, where?: 'deployment' | 'pod') =>
  featureGates(infoOf(container, where)).gates.get('NodeRepair');

describe('featureGates: NodeRepair as the controller reads it', () => {
  it.each(['true', 'True', 'TRUE', '1', 't'])('NodeRepair=%s is on (Go strconv.ParseBool)', (value) => {
    expect(
      gate({ name: 'controller', env: [{ name: 'FEATURE_GATES', value: `SpotToSpotConsolidation=false,NodeRepair=${value}` }] }),
    ).toBe(true);
  });

  it('off when the text does not name it, or names it with a word ParseBool refuses', () => {
    expect(gate({ name: 'controller', env: [{ name: 'FEATURE_GATES', value: 'SpotToSpotConsolidation=true' }] })).toBeUndefined();
    expect(gate({ name: 'controller', env: [{ name: 'FEATURE_GATES', value: 'NodeRepair=yes' }] })).toBeUndefined();
  });

  it('the --feature-gates arg overrides the env, in either of its spellings', () => {
    const env = [{ name: 'FEATURE_GATES', value: 'NodeRepair=false' }];

    expect(gate({ name: 'controller', env, args: ['--feature-gates=NodeRepair=true'] })).toBe(true);
    expect(gate({ name: 'controller', env, args: ['--feature-gates', 'NodeRepair=true'] })).toBe(true);
  });

  it('a FEATURE_GATES set from a reference is unknown, not off', () => {
    const gates = featureGates(
      infoOf({ name: 'controller', env: [{ name: 'FEATURE_GATES', valueFrom: { configMapKeyRef: {} } }] }),
    );

    expect(gates.text).toBeUndefined();
  });

  it('reads a controller pod when the Deployment was not captured', () => {
    expect(gate({ name: 'controller', env: [{ name: 'FEATURE_GATES', value: 'NodeRepair=true' }] }, 'pod')).toBe(true);
  });

  it("reads the version from the image tag when the chart's labels do not give it", () => {
    const info = infoOf({ name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.2.3@sha256:abc' });

    expect(controllerVersionOf(info)).toBe('1.2.3');
  });
});
