import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCaptureFiles } from '../../../bench/capture-files.ts';
import { syntheticCluster } from '../../../bench/synthetic-cluster.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';

const SMALL = {
  // Too few nodes for the third wave's idle and NotReady ones.
  idleNodesBehindPdbs: 0,
  notReadyNodes: 0,
  pods: 120,
  pendingPods: 20,
  nodes: 12,
  nodeClaims: 11,
  unregisteredNodeClaims: 2,
  orphanInstances: 3,
  events: 40,
  logLines: 30,
  terminatingNodes: 1,
  driftedNodeClaims: 1,
  uninitializedNodeClaims: 1,
};
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-capture-'));
  dirs.push(dir);
  return dir;
}

const seconds = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('writeCaptureFiles', () => {
  it('writes one kubectl List per resource, the AWS CLI outputs and the controller log', () => {
    // Prepare
    const snapshot = syntheticCluster(SMALL);
    const dir = tempDir();

    // Act
    const files = writeCaptureFiles(snapshot, dir);

    // Assess
    const names = files.map((f) => basename(f.path));
    expect(names).toEqual(
      expect.arrayContaining([
        'pods.json',
        'nodeclaims.json',
        'customresourcedefinitions.json',
        'describe-instances.json',
        'describe-cluster.json',
        'list-access-entries.json',
        'list-instance-profiles.json',
        'karpenter.log',
      ]),
    );
    const pods = JSON.parse(readFileSync(join(dir, 'pods.json'), 'utf8')) as { kind: string; items: unknown[] };
    expect(pods.kind).toBe('List');
    expect(pods.items).toHaveLength(120);
    const ec2 = JSON.parse(readFileSync(join(dir, 'describe-instances.json'), 'utf8')) as {
      Reservations: { Instances: unknown[] }[];
    };
    expect(ec2.Reservations.flatMap((r) => r.Instances)).toHaveLength(snapshot.instances.length);
    expect(readFileSync(join(dir, 'karpenter.log'), 'utf8').trim().split('\n')).toHaveLength(30);
    expect(files.every((f) => f.bytes > 0)).toBe(true);
  });

  it('round-trips through the loader: the loaded snapshot holds the same objects', async () => {
    // Prepare
    const snapshot = syntheticCluster(SMALL);
    const dir = tempDir();
    writeCaptureFiles(snapshot, dir);

    // Act
    const loaded = await loadSnapshot([dir]);

    // Assess
    const s = loaded.snapshot;
    expect(loaded.notices).toEqual([]);
    expect(s.clusterName).toBe('bench');
    // The synthetic cluster marks every source captured; the bench writes no Spot prices file (it
    // holds none to write), nor, since issue 24 added them, admission webhook files (it plants no
    // webhook), so these are the sources not read back.
    const unwritten = ['spotprices', 'webhookconfigurations', 'endpoints'];
    expect([...s.captured].sort()).toEqual([...snapshot.captured].filter((source) => !unwritten.includes(source)).sort());
    expect(s.pods).toEqual(snapshot.pods);
    expect(s.nodes).toEqual(snapshot.nodes);
    expect(s.nodeClaims).toEqual(snapshot.nodeClaims);
    expect(s.nodePools).toEqual(snapshot.nodePools);
    expect(s.nodeClasses).toEqual(snapshot.nodeClasses);
    expect(s.events).toEqual(snapshot.events);
    expect(s.configMaps).toEqual(snapshot.configMaps);
    expect(s.cluster).toEqual(snapshot.cluster);
    expect(s.accessEntries).toEqual(snapshot.accessEntries);
    expect(s.fargateProfiles).toEqual(snapshot.fargateProfiles);
    // The AWS CLI prints `+00:00` times; compare instants.
    expect(s.instances.map((i) => ({ ...i, launchTime: seconds(i.launchTime) }))).toEqual(
      snapshot.instances.map((i) => ({ ...i, launchTime: seconds(i.launchTime) })),
    );
    expect(s.logs.map((l) => l.fields)).toEqual(snapshot.logs.map((l) => l.fields));
  });

  it('writes the -o yaml twin: the same Lists as kubectl prints them in YAML, loaded into the same snapshot', async () => {
    // Prepare
    const snapshot = syntheticCluster(SMALL);
    const jsonDir = tempDir();
    const yamlDir = tempDir();
    writeCaptureFiles(snapshot, jsonDir);

    // Act
    const files = writeCaptureFiles(snapshot, yamlDir, 'yaml');
    const fromJson = await loadSnapshot([jsonDir]);
    const fromYaml = await loadSnapshot([yamlDir]);

    // Assess
    const names = files.map((f) => basename(f.path));
    expect(names).toEqual(expect.arrayContaining(['pods.yaml', 'nodeclaims.yaml', 'describe-instances.json', 'karpenter.log']));
    expect(names.filter((n) => n.endsWith('.json') && !n.startsWith('describe-') && !n.startsWith('list-'))).toEqual([]);
    const pods = readFileSync(join(yamlDir, 'pods.yaml'), 'utf8');
    expect(pods.startsWith('apiVersion: v1\nitems:\n- ')).toBe(true);
    expect(pods.endsWith('kind: List\nmetadata:\n  resourceVersion: ""\n')).toBe(true);
    expect(fromYaml.notices).toEqual([]);
    // Log lines name the file they came from: the two directories differ there only.
    const { logs: yamlLogs, ...yamlRest } = fromYaml.snapshot;
    const { logs: jsonLogs, ...jsonRest } = fromJson.snapshot;
    expect(yamlRest).toEqual(jsonRest);
    expect(yamlLogs.map((l) => l.fields)).toEqual(jsonLogs.map((l) => l.fields));
  });
});
