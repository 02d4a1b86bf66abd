import { describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../../src/domain/kube.ts';
import { setAsideGap } from '../../../../src/domain/snapshot.ts';
import { snapshotFromFiles } from '../../../../src/snapshot/load.ts';
import { captureFiles } from '../../../../src/snapshot/write/capture-files.ts';
import { logLine, snapshotOf, subnet } from '../../../factories/aws.ts';
import { awsAuth, deployment, karpenterPod, pdb, pod, volumeAttachment } from '../../../factories/kube.ts';

const SECRET = 'hunter2';
const TAKEN_AT = new Date('2026-01-01T00:00:00Z');
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Objects as a capture may hold them when they did not come through the live reader (which drops some of this already). */
function snapshotWithSecrets() {
  const debugPod = pod({ name: 'api-0', namespace: 'shop' });
  debugPod.metadata = { ...debugPod.metadata, annotations: { [LAST_APPLIED]: `{"env":"${SECRET}"}`, team: 'shop' } };
  // `kubectl debug` adds these; the domain type does not name them.
  debugPod.spec = {
    ...debugPod.spec,
    ephemeralContainers: [{ name: 'debugger', image: 'busybox', env: [{ name: 'TOKEN', value: SECRET }] }],
  } as typeof debugPod.spec;
  const controller = karpenterPod({ name: 'karpenter-5697769d6c-a' });
  controller.spec = {
    ...controller.spec,
    containers: [
      {
        name: 'controller',
        env: [
          { name: 'CLUSTER_NAME', value: 'demo' },
          { name: 'AWS_ROLE_ARN', value: 'arn:aws:iam::111122223333:role/KarpenterController' },
          { name: 'INTERRUPTION_QUEUE', value: 'demo' },
          { name: 'WEBHOOK_SECRET', value: SECRET },
        ],
      },
    ],
  };
  const base = deployment({ name: 'api', namespace: 'shop' });
  const replicaSet = {
    ...base,
    kind: 'ReplicaSet',
    metadata: { ...base.metadata, name: 'api-6d4f', annotations: { 'kapp.k14s.io/original': SECRET } },
    spec: {
      ...base.spec,
      template: {
        ...base.spec?.template,
        spec: { containers: [{ name: 'main', env: [{ name: 'PASSWORD', value: SECRET }] }] },
      },
    },
  } as ReplicaSet;
  return snapshotOf({
    pods: [debugPod, controller],
    replicaSets: [replicaSet],
    configMaps: [
      awsAuth('- rolearn: arn:aws:iam::111122223333:role/KarpenterNodeRole-demo\n  username: system:node:{{EC2PrivateDNSName}}'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'shop' }, data: { password: SECRET } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'aws-auth', namespace: 'shop' }, data: { x: SECRET } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
        data: { 'aws.interruptionQueueName': 'demo' },
      },
    ],
  });
}

describe('captureFiles leaves out what may hold secrets', () => {
  it('no secret in any file, whatever the container kind, pod template, annotation or ConfigMap', () => {
    const files = captureFiles(snapshotWithSecrets(), TAKEN_AT);

    for (const file of files) expect(file.text, file.name).not.toContain(SECRET);
  });

  it('keeps what the analysis reads: variable names, CLUSTER_NAME, AWS_ROLE_ARN and INTERRUPTION_QUEUE values, other annotations, kube-system/aws-auth, karpenter-global-settings', async () => {
    const snapshot = snapshotWithSecrets();

    const files = captureFiles(snapshot, TAKEN_AT);
    const { snapshot: readBack } = await snapshotFromFiles(
      files.filter((f) => f.name !== 'SNAPSHOT.md').map((f) => ({ path: f.name, text: f.text })),
    );

    const controller = readBack.pods.find((p) => p.metadata?.name === 'karpenter-5697769d6c-a');
    expect(controller?.spec?.containers?.[0]?.env).toEqual([
      { name: 'CLUSTER_NAME', value: 'demo' },
      { name: 'AWS_ROLE_ARN', value: 'arn:aws:iam::111122223333:role/KarpenterController' },
      { name: 'INTERRUPTION_QUEUE', value: 'demo' },
      { name: 'WEBHOOK_SECRET' },
    ]);
    expect(readBack.pods.find((p) => p.metadata?.name === 'api-0')?.metadata?.annotations).toEqual({ team: 'shop' });
    expect(readBack.configMaps.map((c) => `${c.metadata?.namespace}/${c.metadata?.name}`).sort()).toEqual([
      'karpenter/karpenter-global-settings',
      'kube-system/aws-auth',
    ]);
    expect(readBack.configMaps.find((c) => c.metadata?.name === 'aws-auth')?.data).toEqual(snapshot.configMaps[0]?.data);
  });

  it('does not change the snapshot it writes from', () => {
    const snapshot = snapshotWithSecrets();
    const before = structuredClone(snapshot);

    captureFiles(snapshot, TAKEN_AT);

    expect(snapshot).toEqual(before);
  });

  it('SNAPSHOT.md says what was left out, and how much', () => {
    const summary = captureFiles(snapshotWithSecrets(), TAKEN_AT).find((f) => f.name === 'SNAPSHOT.md')?.text ?? '';

    expect(summary).toContain('Left out, as they may hold secrets (nothing the analysis reads):');
    expect(summary).toContain(
      '(3 left out): their `name` and `valueFrom` reference stay; CLUSTER_NAME, AWS_ROLE_ARN and INTERRUPTION_QUEUE keep their value',
    );
    expect(summary).toMatch(/`kubectl\.kubernetes\.io\/last-applied-configuration`.*; 2 left out\)/);
    expect(summary).toContain(
      "- every ConfigMap but kube-system/aws-auth and Karpenter's karpenter-global-settings (2 left out)",
    );
  });
});

describe('captureFiles records what the files cannot show', () => {
  const snapshot = () => {
    const s = snapshotOf({ pods: [pod({ name: 'api-0', namespace: 'shop' })] });
    s.gaps.push(
      setAsideGap('pods', 1),
      { source: 'nodeclaims', error: '403 Forbidden: <b>*nodeclaims*</b> \u202eforbidden' },
      { source: 'instances', error: 'DescribeInstances failed: UnauthorizedOperation: not allowed' },
    );
    return s;
  };
  const notes = ['Kubernetes API: Pod shop/web-1: spec.containers is a string, expected a list; object set aside'];

  it('gaps.json holds the gaps no other file shows and the notes; read back with the rest, the scan has every gap', () => {
    const files = captureFiles(snapshot(), TAKEN_AT, notes);

    expect(JSON.parse(files.find((f) => f.name === 'gaps.json')?.text ?? '{}')).toMatchObject({
      gaps: [
        { source: 'pods', error: '1 object set aside as malformed (see notes)' },
        { source: 'nodeclaims', error: '403 Forbidden: <b>*nodeclaims*</b> \u202eforbidden' },
      ],
      notes,
    });
    // The loader skips Markdown when it lists a folder.
    const read = snapshotFromFiles(
      files.filter((f) => f.name !== 'SNAPSHOT.md').map((f) => ({ path: `capture/${f.name}`, text: f.text })),
    );
    expect(read.snapshot.gaps.map((g) => g.source).sort()).toEqual(['instances', 'nodeclaims', 'pods']);
    expect(read.notices).toContain(`capture/gaps.json: ${notes[0]}`);
  });

  it('SNAPSHOT.md tells objects set aside from sources that could not be read, as visible text, never Markdown', () => {
    const summary = captureFiles(snapshot(), TAKEN_AT, notes).find((f) => f.name === 'SNAPSHOT.md')?.text ?? '';

    expect(summary).toContain(
      [
        'Could not be read (so a scan of this folder is incomplete too):',
        '',
        '- nodeclaims: 403 Forbidden: \\<b\\>\\*nodeclaims\\*\\</b\\> \\\\u202eforbidden',
        '- instances: DescribeInstances failed: UnauthorizedOperation: not allowed',
      ].join('\n'),
    );
    expect(summary).toMatch(/\nSet aside as malformed: .*\n\n- pods: 1 object set aside as malformed \(see notes\)\n/);
    expect(summary).toContain(`Which objects, and why:\n\n- \`${notes[0]}\`\n`);
    expect(summary).not.toContain('\u202e');
  });
});

describe('captureFiles: PodDisruptionBudgets, VolumeAttachments and subnets', () => {
  it('writes pdb.json, volumeattachments.json and subnets.json as capture-script names them, and they read back the same', () => {
    // Prepare
    const snapshot = snapshotOf({
      pdbs: [
        pdb({ name: 'web', namespace: 'shop', matchLabels: { app: 'web' } }),
        pdb({ name: 'db', maxUnavailable: '10%', matchLabels: { app: 'db' } }),
      ],
      volumeAttachments: [
        volumeAttachment({ name: 'csi-0a1b', nodeName: 'ip-10-0-1-20.ec2.internal', persistentVolumeName: 'pvc-1' }),
        volumeAttachment({
          name: 'csi-0a1c',
          nodeName: 'ip-10-0-1-21.ec2.internal',
          persistentVolumeName: 'pvc-2',
          deletionTimestamp: '2026-01-01T00:10:00Z',
          attached: false,
        }),
      ],
      subnets: [
        subnet({ id: 'subnet-0a1b2c3d4e5f60001', zone: 'us-east-1a', free: 8100 }),
        {
          ...subnet({ id: 'subnet-0a1b2c3d4e5f60002', zone: 'us-east-1b', free: 0 }),
          ipv6CidrBlocks: ['2600:1f18::/64'],
          ipv6Native: true,
        },
      ],
    });

    // Act
    const files = captureFiles(snapshot, TAKEN_AT);
    const back = snapshotFromFiles(
      files.filter((f) => f.name !== 'SNAPSHOT.md').map((f) => ({ path: `capture/${f.name}`, text: f.text })),
    );

    // Assess
    expect(files.map((f) => f.name).sort()).toEqual(['SNAPSHOT.md', 'pdb.json', 'subnets.json', 'volumeattachments.json']);
    expect(back.snapshot.captured).toEqual(new Set(['pdbs', 'volumeattachments', 'subnets']));
    expect(back.snapshot.pdbs).toEqual(snapshot.pdbs);
    expect(back.snapshot.volumeAttachments).toEqual(snapshot.volumeAttachments);
    expect(back.snapshot.subnets).toEqual(snapshot.subnets);
    expect(back.notices).toEqual([]);
  });

  it('writes the previous container log to karpenter-previous.log, which reads back marked previous', () => {
    // Prepare
    const snapshot = snapshotOf({
      logs: [
        {
          ...logLine({ level: 'ERROR', message: 'panic: leader election lost' }, 'karpenter/karpenter-1 (previous):1'),
          previous: true,
        },
        logLine({ level: 'INFO', message: 'Starting workers' }, 'karpenter/karpenter-1:1'),
      ],
    });

    // Act
    const files = captureFiles(snapshot, TAKEN_AT);
    const back = snapshotFromFiles(
      files.filter((f) => f.name !== 'SNAPSHOT.md').map((f) => ({ path: `capture/${f.name}`, text: f.text })),
    );

    // Assess
    expect(files.map((f) => f.name).sort()).toEqual(['SNAPSHOT.md', 'karpenter-previous.log', 'karpenter.log']);
    expect(back.snapshot.logs.map((l) => [l.message, l.previous ?? false]).sort()).toEqual([
      ['Starting workers', false],
      ['panic: leader election lost', true],
    ]);
  });

  it('writes none of them for a snapshot that did not capture them, and empty lists for "captured, none"', () => {
    expect(captureFiles(snapshotOf({ pods: [] }), TAKEN_AT).map((f) => f.name)).toEqual(['pods.json', 'SNAPSHOT.md']);

    const files = captureFiles(snapshotOf({ pdbs: [], volumeAttachments: [], subnets: [] }), TAKEN_AT);
    const back = snapshotFromFiles(files.filter((f) => f.name !== 'SNAPSHOT.md').map((f) => ({ path: f.name, text: f.text })));

    expect(back.snapshot.captured).toEqual(new Set(['pdbs', 'volumeattachments', 'subnets']));
  });
});
