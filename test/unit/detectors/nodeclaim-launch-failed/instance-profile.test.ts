import { describe, expect, it } from 'vitest';
import { nodeClaimLaunchFailed } from '../../../../src/detectors/nodeclaim-launch-failed/detector.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { parseLogLine } from '../../../../src/snapshot/controller-logs.ts';
import { instanceProfile, snapshotOf } from '../../../factories/aws.ts';
import { ec2NodeClass, nodeClaim, nodePool } from '../../../factories/karpenter.ts';
import { T0, condition, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 30);
const PROFILE = 'KarpenterNodeInstanceProfile-experimental-us-east-2-1';

/** aws/karpenter-provider-aws#7503, as `kubectl logs` prints it (the time moved to T0). */
const LINE = `{"level":"ERROR","time":"${minutesAfter(T0, 10)}","logger":"controller","message":"Reconciler error","controller":"nodeclaim.lifecycle","controllerKind":"NodeClaim","NodeClaim":{"name":"general-apps-nodepool-vpmpg"},"name":"general-apps-nodepool-vpmpg","error":"launching nodeclaim, creating instance, InvalidParameterValue: Value (${PROFILE}) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name"}`;

function detect(snapshot: ClusterSnapshot) {
  return nodeClaimLaunchFailed.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  });
}

const namingClass = ec2NodeClass({ name: 'general-apps-nodeclass', instanceProfile: PROFILE });
const otherProfile = instanceProfile({ name: 'eks-c2c9d7a4-node-group', role: 'eks-node-group-role' });

describe('NODECLAIM_LAUNCH_FAILED: an instance profile EC2 does not know (aws/karpenter-provider-aws#7503)', () => {
  it('the captured profile list lacks it: the profile does not exist, named with the EC2NodeClass that names it', () => {
    const s = snapshotOf({
      logs: [parseLogLine(LINE, 'karpenter.log:1')],
      nodeClasses: [namingClass],
      instanceProfiles: [otherProfile],
    });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('INSTANCE_PROFILE_NOT_FOUND');
    expect(f?.cause?.detail).toContain(PROFILE);
    expect(f?.cause?.detail).toContain('EC2NodeClass general-apps-nodeclass names it in spec.instanceProfile');
    expect(f?.cause?.detail).toContain('does not list it (it lists eks-c2c9d7a4-node-group)');
    expect(f?.remediation?.steps.join('\n')).toContain(`aws iam create-instance-profile --instance-profile-name ${PROFILE}`);
    expect(f?.remediation?.steps.join('\n')).not.toContain('iam:PassRole');
  });

  it('the profile list was not captured: the check that decides comes first', () => {
    const s = snapshotOf({ logs: [parseLogLine(LINE, 'karpenter.log:1')], nodeClasses: [namingClass] });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('INSTANCE_PROFILE_NOT_FOUND');
    expect(f?.cause?.detail).toContain('were not captured');
    expect(f?.remediation?.steps[0]).toContain(`aws iam get-instance-profile --instance-profile-name ${PROFILE}`);
  });

  it('the captured list holds the profile: "missing" is contradicted, nothing is created', () => {
    const s = snapshotOf({
      logs: [parseLogLine(LINE, 'karpenter.log:1')],
      nodeClasses: [namingClass],
      instanceProfiles: [otherProfile, instanceProfile({ name: PROFILE, role: 'KarpenterNodeRole-experimental' })],
    });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('UNKNOWN');
    expect(f?.cause?.detail).toContain('holds it, so it is not missing');
    expect(f?.remediation?.steps.join('\n')).not.toContain('create-instance-profile');
  });

  it("Karpenter v1.1+'s reason names no profile: the EC2NodeClass's status does, and a managed profile is not created by hand", () => {
    const managed = ec2NodeClass({ name: 'default', role: 'KarpenterNodeRole-demo' });
    managed.status = { ...managed.status, instanceProfile: 'demo_1234567890' };
    const s = snapshotOf({
      nodePools: [nodePool({ name: 'default' })],
      nodeClaims: [
        nodeClaim({
          name: 'default-x7k2p',
          nodePool: 'default',
          conditions: [
            condition('Launched', 'False', {
              reason: 'InstanceProfileNameInvalid',
              message: 'Instance profile name used from EC2NodeClass status does not exist',
              lastTransitionTime: minutesAfter(T0, 5),
            }),
          ],
        }),
      ],
      nodeClasses: [managed],
      instanceProfiles: [otherProfile],
    });

    const [f] = detect(s);

    expect(f?.cause?.code).toBe('INSTANCE_PROFILE_NOT_FOUND');
    expect(f?.cause?.detail).toContain('instance profile demo_1234567890');
    expect(f?.cause?.detail).toContain('sets spec.role KarpenterNodeRole-demo');
    expect(f?.remediation?.steps.join('\n')).toContain('aws iam get-role --role-name KarpenterNodeRole-demo');
    expect(f?.remediation?.steps.join('\n')).not.toContain('create-instance-profile');
  });
});
