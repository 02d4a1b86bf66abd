/**
 * Writes a snapshot as the capture files users produce (docs/capture.md#what-to-capture): one
 * `kubectl get <plural> -A -o json` (or `-o yaml`) List per resource, the AWS CLI's JSON output, and the
 * controller log as JSON lines. Indented as kubectl and the AWS CLI print them (4 spaces).
 */
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { Instance } from '../src/domain/aws.ts';
import type { KubeEvent, KubeObject } from '../src/domain/kube.ts';
import type { ClusterSnapshot } from '../src/domain/snapshot.ts';
import { describeInstanceTypes, EC2_STATE_CODES } from '../src/snapshot/write/aws-cli-shape.ts';

export interface CaptureFile {
  path: string;
  bytes: number;
}

/** `json`: `kubectl get -o json` Lists, as kubectl prints them; `yaml`: the `-o yaml` twin (kubectl's Lists only; the AWS CLI's output and the log stay as they are). */
export type KubectlFormat = 'json' | 'yaml';

export function writeCaptureFiles(snapshot: ClusterSnapshot, dir: string, format: KubectlFormat = 'json'): CaptureFile[] {
  mkdirSync(dir, { recursive: true });
  const account = accountOf(snapshot);
  const written: CaptureFile[] = [];
  const file = (name: string) => {
    const path = join(dir, name);
    written.push({ path, bytes: 0 });
    return path;
  };
  const json = (name: string, value: unknown) => writeFileSync(file(name), `${JSON.stringify(value, null, 4)}\n`);

  const list = (plural: string, items: readonly object[]) =>
    format === 'json' ? writeKubectlList(file(`${plural}.json`), items) : writeKubectlYamlList(file(`${plural}.yaml`), items);
  list('pods', snapshot.pods);
  list('deployments', snapshot.deployments);
  list('replicasets', snapshot.replicaSets);
  list('nodes', snapshot.nodes);
  list('events', snapshot.events.map(coreEvent));
  list('configmaps', snapshot.configMaps);
  list('services', snapshot.services);
  list('customresourcedefinitions', snapshot.crds);
  list('nodeclaims', snapshot.nodeClaims);
  list('nodepools', snapshot.nodePools);
  list('ec2nodeclasses', snapshot.nodeClasses);
  list('pdb', snapshot.pdbs);
  list('volumeattachments', snapshot.volumeAttachments);

  if (snapshot.cluster && !snapshot.cluster.gone) json('describe-cluster.json', describeCluster(snapshot));
  json('describe-instances.json', { Reservations: snapshot.instances.map((i, n) => reservation(i, n, account)) });
  json('list-fargate-profiles.json', { fargateProfileNames: snapshot.fargateProfiles.map((p) => p.name) });
  for (const p of snapshot.fargateProfiles.filter((f) => f.described)) {
    json(`describe-fargate-profile-${p.name}.json`, {
      fargateProfile: {
        fargateProfileName: p.name,
        fargateProfileArn: `arn:aws:eks:${regionOf(snapshot)}:${account}:fargateprofile/${snapshot.clusterName}/${p.name}/00000000-0000-0000-0000-000000000000`,
        clusterName: snapshot.clusterName,
        podExecutionRoleArn: p.podExecutionRoleArn,
        subnets: p.subnets ?? [],
        selectors: p.selectors,
        status: p.status,
        tags: {},
      },
    });
  }
  json('list-access-entries.json', { accessEntries: snapshot.accessEntries.map((e) => e.principalArn) });
  snapshot.accessEntries
    .filter((e) => e.described)
    .forEach((e, n) =>
      json(`describe-access-entry-${n + 1}.json`, {
        accessEntry: {
          clusterName: snapshot.clusterName,
          principalArn: e.principalArn,
          kubernetesGroups: e.kubernetesGroups ?? [],
          username: e.username,
          type: e.type,
          tags: {},
        },
      }),
    );
  json('describe-launch-templates.json', {
    LaunchTemplates: snapshot.launchTemplates.map((t) => ({
      LaunchTemplateId: t.id,
      LaunchTemplateName: t.name,
      ...(t.createTime ? { CreateTime: awsTime(t.createTime) } : {}),
      CreatedBy: `arn:aws:sts::${account}:assumed-role/KarpenterController-${snapshot.clusterName}/1767225600000000000`,
      DefaultVersionNumber: 1,
      LatestVersionNumber: 1,
      Tags: awsTags(t.tags),
    })),
  });
  json('list-instance-profiles.json', {
    InstanceProfiles: snapshot.instanceProfiles.map((p) => ({
      Path: p.path ?? '/',
      InstanceProfileName: p.name,
      InstanceProfileId: p.id,
      Arn: p.arn,
      ...(p.createDate ? { CreateDate: awsTime(p.createDate) } : {}),
      Roles: p.roles.map((r) => ({ Path: '/', RoleName: r.name, Arn: r.arn })),
      ...(Object.keys(p.tags).length > 0 ? { Tags: awsTags(p.tags) } : {}),
    })),
  });
  json('describe-subnets.json', {
    Subnets: snapshot.subnets.map((s) => ({
      AvailabilityZone: s.availabilityZone,
      AvailableIpAddressCount: s.availableIpAddressCount,
      CidrBlock: s.cidrBlock,
      SubnetId: s.id,
      VpcId: s.vpcId,
      OwnerId: account,
      ...(Object.keys(s.tags).length > 0 ? { Tags: awsTags(s.tags) } : {}),
    })),
  });
  json('describe-instance-types.json', describeInstanceTypes(snapshot.instanceTypes));
  const lines = (previous: boolean) =>
    snapshot.logs
      .filter((l) => (l.previous === true) === previous)
      .map((l) => `${JSON.stringify(l.fields)}\n`)
      .join('');
  writeFileSync(file('karpenter.log'), lines(false));
  // `kubectl logs --previous` of the controller pod that restarted, beside the current log.
  if (snapshot.logs.some((l) => l.previous === true)) writeFileSync(file('karpenter-previous.log'), lines(true));

  for (const f of written) f.bytes = statSync(f.path).size;
  return written;
}

/** `kubectl get ... -o json` prints a `List`; items are written one at a time so no single string gets huge. */
function writeKubectlList(path: string, items: readonly object[]): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '{\n    "apiVersion": "v1",\n    "items": [');
    let chunk = '';
    items.forEach((item, n) => {
      chunk += `${n === 0 ? '\n' : ',\n'}        ${JSON.stringify(item, null, 4).replaceAll('\n', '\n        ')}`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    });
    writeSync(
      fd,
      `${chunk}${items.length > 0 ? '\n    ' : ''}],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`,
    );
  } finally {
    closeSync(fd);
  }
}

/**
 * `kubectl get ... -o yaml` prints the same List as YAML: 2-space indent, the `items:` entries at
 * column 0. Each item is written on its own (no single huge string), no aliases (kubectl writes none).
 */
function writeKubectlYamlList(path: string, items: readonly object[]): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, items.length === 0 ? 'apiVersion: v1\nitems: []\n' : 'apiVersion: v1\nitems:\n');
    let chunk = '';
    for (const item of items) {
      const yaml = dump(item, { noRefs: true, skipInvalid: true, seqNoIndent: true, lineWidth: -1 });
      chunk += `- ${yaml.trimEnd().replaceAll('\n', '\n  ')}\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, `${chunk}kind: List\nmetadata:\n  resourceVersion: ""\n`);
  } finally {
    closeSync(fd);
  }
}

/** core/v1 Event as the API serves it. */
function coreEvent(e: KubeEvent, n: number): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${e.regarding.name ?? 'unknown'}.${n.toString(16).padStart(16, '0')}`,
      namespace: e.namespace ?? 'default',
      ...(e.firstTime ? { creationTimestamp: e.firstTime } : {}),
    },
    involvedObject: { ...e.regarding },
    reason: e.reason,
    message: e.message,
    type: e.type,
    source: { component: e.source },
    firstTimestamp: e.firstTime,
    lastTimestamp: e.lastTime,
    count: e.count,
    eventTime: null,
    reportingComponent: e.source ?? '',
    reportingInstance: '',
  };
}

function describeCluster(snapshot: ClusterSnapshot): unknown {
  const c = snapshot.cluster;
  if (!c) return {};
  return {
    cluster: {
      name: c.name,
      arn: c.arn,
      version: c.version,
      endpoint: c.endpoint,
      status: c.status,
      ...(c.certificateAuthority ? { certificateAuthority: { data: c.certificateAuthority } } : {}),
      platformVersion: 'eks.20',
      tags: c.tags ?? {},
      ...(c.authenticationMode ? { accessConfig: { authenticationMode: c.authenticationMode } } : {}),
    },
  };
}

function reservation(i: Instance, n: number, account: string): unknown {
  return {
    ReservationId: `r-0${n.toString(16).padStart(16, '0')}`,
    OwnerId: account,
    Groups: [],
    Instances: [
      {
        AmiLaunchIndex: 0,
        InstanceId: i.id,
        InstanceType: i.instanceType,
        ...(i.launchTime ? { LaunchTime: awsTime(i.launchTime) } : {}),
        Placement: { AvailabilityZone: i.availabilityZone, GroupName: '', Tenancy: 'default' },
        PrivateDnsName: i.privateDnsName ?? '',
        State: { Code: EC2_STATE_CODES[i.state] ?? 16, Name: i.state },
        ...(i.iamInstanceProfileArn ? { IamInstanceProfile: { Arn: i.iamInstanceProfileArn } } : {}),
        Tags: awsTags(i.tags),
      },
    ],
  };
}

function awsTags(tags: Record<string, string>): { Key: string; Value: string }[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

/** The AWS CLI prints timestamps as `2026-01-01T11:00:03+00:00`. */
function awsTime(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

function accountOf(snapshot: ClusterSnapshot): string {
  return snapshot.cluster?.arn?.split(':')[4] ?? '000000000000';
}

function regionOf(snapshot: ClusterSnapshot): string {
  return snapshot.cluster?.arn?.split(':')[3] ?? 'us-east-1';
}
