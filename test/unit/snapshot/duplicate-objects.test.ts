import { describe, expect, it } from 'vitest';
import { snapshotFromFiles, type CaptureFile } from '../../../src/snapshot/build-snapshot.ts';

function podsFile(path: string, pods: { name: string; phase: string; resourceVersion?: string }[]): CaptureFile {
  const items = pods.map((p) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: 'shop',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(p.resourceVersion ? { resourceVersion: p.resourceVersion } : {}),
    },
    spec: { containers: [{ name: 'web', image: 'nginx' }] },
    status: { phase: p.phase },
  }));
  return { path, text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) };
}

function instancesFile(path: string, state: string): CaptureFile {
  const instance = { InstanceId: 'i-0a3f1c9e8b7d6a501', State: { Name: state }, LaunchTime: '2026-01-01T00:00:00Z', Tags: [] };
  return { path, text: JSON.stringify({ Reservations: [{ Instances: [instance] }] }) };
}

const phaseOf = (files: CaptureFile[], name = 'web-1') =>
  snapshotFromFiles(files).snapshot.pods.find((p) => p.metadata?.name === name)?.status?.phase;

describe('the same object in several capture files', () => {
  it('keeps the copy with the newer resourceVersion, whichever file is read last, and says so naming both files', () => {
    const newer = podsFile('capture/a-pods.json', [{ name: 'web-1', phase: 'Running', resourceVersion: '1300' }]);
    const older = podsFile('capture/b-pods.json', [{ name: 'web-1', phase: 'Pending', resourceVersion: '1200' }]);

    const { notices } = snapshotFromFiles([newer, older]);

    expect(phaseOf([newer, older])).toBe('Running');
    expect(phaseOf([older, newer])).toBe('Running');
    expect(notices).toEqual([
      'Pod shop/web-1 is in capture/a-pods.json and capture/b-pods.json with different content; used the copy in capture/a-pods.json (resourceVersion 1300 is newer than 1200)',
    ]);
  });

  it('without comparable resourceVersions, keeps the copy in the file read later, and says so', () => {
    const first = podsFile('capture/a-pods.json', [{ name: 'web-1', phase: 'Pending' }]);
    const second = podsFile('capture/b-pods.json', [{ name: 'web-1', phase: 'Running' }]);

    const { notices } = snapshotFromFiles([first, second]);

    expect(phaseOf([first, second])).toBe('Running');
    expect(notices).toEqual([
      'Pod shop/web-1 is in capture/a-pods.json and capture/b-pods.json with different content; used the copy in capture/b-pods.json (the file read later)',
    ]);
  });

  it('is silent about identical copies, in JSON and YAML alike (YAML sorts the keys)', () => {
    const json = podsFile('capture/pods.json', [{ name: 'web-1', phase: 'Running', resourceVersion: '1300' }]);
    const yaml = {
      path: 'capture/pods.yaml',
      text: [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  creationTimestamp: "2026-01-01T00:00:00Z"',
        '  name: web-1',
        '  namespace: shop',
        '  resourceVersion: "1300"',
        'spec:',
        '  containers:',
        '  - image: nginx',
        '    name: web',
        'status:',
        '  phase: Running',
      ].join('\n'),
    };

    const { snapshot, notices } = snapshotFromFiles([json, yaml]);

    expect(notices).toEqual([]);
    expect(snapshot.pods).toHaveLength(1);
  });

  it('says so for an EC2 instance described differently in two files, the later file winning', () => {
    const { snapshot, notices } = snapshotFromFiles([
      instancesFile('capture/instances.json', 'running'),
      instancesFile('capture/later/instances.json', 'terminated'),
    ]);

    expect(snapshot.instances.map((i) => i.state)).toEqual(['terminated']);
    expect(notices).toEqual([
      'Instance i-0a3f1c9e8b7d6a501 is in capture/instances.json and capture/later/instances.json with different content; used the copy in capture/later/instances.json (the file read later)',
    ]);
  });

  it('names the first few and counts the rest when two whole captures differ everywhere', () => {
    const names = Array.from({ length: 8 }, (_, i) => `web-${i}`);
    const day1 = podsFile(
      'day1/pods.json',
      names.map((name) => ({ name, phase: 'Pending' })),
    );
    const day2 = podsFile(
      'day2/pods.json',
      names.map((name) => ({ name, phase: 'Running' })),
    );

    const { notices } = snapshotFromFiles([day1, day2]);

    expect(notices).toHaveLength(6);
    expect(notices[5]).toBe('and 3 more objects in several files with different content');
  });

  it('tells objects of two kinds with the same name apart: a NodePool and an EC2NodeClass both named default', () => {
    const nodePool = (path: string, consolidateAfter: string): CaptureFile => ({
      path,
      text: [
        'apiVersion: karpenter.sh/v1',
        'kind: NodePool',
        'metadata:',
        '  name: default',
        'spec:',
        '  disruption:',
        `    consolidateAfter: ${consolidateAfter}`,
      ].join('\n'),
    });
    const nodeClass: CaptureFile = {
      path: 'capture/b-nodeclass.yaml',
      text: [
        'apiVersion: karpenter.k8s.aws/v1',
        'kind: EC2NodeClass',
        'metadata:',
        '  name: default',
        'spec:',
        '  role: KarpenterNodeRole',
      ].join('\n'),
    };

    const { snapshot, notices } = snapshotFromFiles([
      nodePool('capture/a-nodepool.yaml', '30s'),
      nodeClass,
      nodePool('capture/c-nodepool.yaml', '5m'),
    ]);

    expect(notices).toEqual([
      'NodePool default is in capture/a-nodepool.yaml and capture/c-nodepool.yaml with different content; used the copy in capture/c-nodepool.yaml (the file read later)',
    ]);
    expect(snapshot.nodePools.map((p) => p.spec?.disruption?.consolidateAfter)).toEqual(['5m']);
    expect(snapshot.nodeClasses.map((c) => c.metadata?.name)).toEqual(['default']);
  });

  it('shows a hostile file name on one visible line', () => {
    const { notices } = snapshotFromFiles([
      podsFile('capture/a.json', [{ name: 'web-1', phase: 'Pending' }]),
      podsFile('capture/\u001b[31mevil\nnote: forged.json', [{ name: 'web-1', phase: 'Running' }]),
    ]);

    expect(notices).toHaveLength(1);
    expect(notices[0]).not.toContain('\u001b');
    expect(notices[0]).not.toContain('\n');
  });
});
