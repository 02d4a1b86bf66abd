import { describe, expect, it } from 'vitest';
import { controllerUnhealthy } from '../../../../src/detectors/karpenter-controller-unhealthy/detector.ts';
import type { LogLine } from '../../../../src/domain/aws.ts';
import type { Container, ContainerStatus, Pod } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { asPreviousLog, readControllerLog } from '../../../../src/snapshot/controller-logs.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, containerStatus, karpenterDeployment, karpenterPod, minutesAfter } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
const NODE = 'ip-10-59-127-151.ec2.internal';
const CONTROLLER: Container = { name: 'controller', image: 'public.ecr.aws/karpenter/controller:1.8.1' };

function detect(snapshot: ClusterSnapshot, now = NOW) {
  return controllerUnhealthy.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(now),
  });
}

function controller(name: string, status: ContainerStatus, container: Container = CONTROLLER): Pod {
  return karpenterPod({
    name,
    nodeName: NODE,
    ready: status.ready ?? true,
    spec: { containers: [container] },
    containerStatuses: [status],
  });
}

const crashLooping = (lastTerminated: { reason?: string; exitCode?: number; finishedAt?: string; message?: string } = {}) =>
  containerStatus({
    restarts: 14,
    waiting: 'CrashLoopBackOff',
    lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: minutesAfter(T0, 57), ...lastTerminated },
  });
const healthy = () => containerStatus({ restarts: 0 });

/** A previous-log line, as `kubectl logs --previous` saved in karpenter-previous.log. */
function previous(fields: Record<string, unknown>, line = 1): LogLine {
  return {
    ...logLine({ level: 'ERROR', time: minutesAfter(T0, 56), ...fields }, `karpenter-previous.log:${line}`),
    previous: true,
  };
}

function crashingSnapshot(logs?: LogLine[], status = crashLooping(), container = CONTROLLER): ClusterSnapshot {
  return snapshotOf({
    pods: [controller('karpenter-5697769d6c-7lglp', status, container), controller('karpenter-5697769d6c-cdwct', healthy())],
    deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 1 })],
    ...(logs ? { logs } : {}),
  });
}

describe('KARPENTER_CONTROLLER_UNHEALTHY', () => {
  describe('when a pod counts as failing', () => {
    it('CrashLoopBackOff with a replica still Ready: one warning finding on the Deployment, counting one pod', () => {
      // Prepare
      const snapshot = crashingSnapshot([
        previous({ message: 'panic: runtime error: invalid memory address or nil pointer dereference' }),
      ]);
      // Act
      const [finding, ...rest] = detect(snapshot);
      // Assess
      expect(rest).toEqual([]);
      expect(finding?.code).toBe('KARPENTER_CONTROLLER_UNHEALTHY');
      expect(finding?.severity).toBe('warning');
      expect(finding?.resource).toEqual({ kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
      expect(finding?.counts).toEqual({ objects: 1 });
      expect(finding?.since).toBe(minutesAfter(T0, 57));
      expect(finding?.evidence).toContain(
        `karpenter/karpenter-5697769d6c-7lglp: CrashLoopBackOff, 14 restarts, last terminated Error (exit code 1) at ${minutesAfter(T0, 57)}`,
      );
      expect(finding?.evidence).toContain('1 of 2 replica(s) Ready');
      expect(finding?.remediation?.action).toBe('MANUAL');
    });

    it('critical when no replica is Ready', () => {
      // Prepare
      const snapshot = snapshotOf({
        pods: [
          controller('karpenter-5697769d6c-7lglp', crashLooping()),
          controller('karpenter-5697769d6c-cdwct', crashLooping()),
        ],
        deployments: [karpenterDeployment({ replicas: 2, readyReplicas: 0 })],
      });
      // Act
      const [finding] = detect(snapshot);
      // Assess
      expect(finding?.severity).toBe('critical');
      expect(finding?.counts).toEqual({ objects: 2 });
      expect(finding?.title).toBe('Karpenter controller karpenter/karpenter: 2 pod(s) failing (CrashLoopBackOff), 0 of 2 ready');
    });

    it('restarted 3 times, the last 20 minutes ago, running again: failing', () => {
      // Prepare
      const status = containerStatus({
        restarts: 3,
        lastTerminated: { reason: 'Error', exitCode: 2, finishedAt: minutesAfter(T0, 40) },
      });
      // Act
      const findings = detect(crashingSnapshot(undefined, status));
      // Assess
      expect(findings.map((f) => f.cause?.code)).toEqual(['UNKNOWN']);
    });

    it('restarted once a week ago: nothing', () => {
      // Prepare
      const status = containerStatus({
        restarts: 1,
        lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: minutesAfter(T0, -7 * 24 * 60) },
      });
      // Act + Assess
      expect(detect(crashingSnapshot(undefined, status))).toEqual([]);
    });

    it('OOMKilled once a week ago, running since: nothing; 5 restarts the last 2 hours ago: nothing', () => {
      // Prepare
      const weekAgo = containerStatus({
        restarts: 1,
        lastTerminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: minutesAfter(T0, -7 * 24 * 60) },
      });
      const longAgo = containerStatus({
        restarts: 5,
        lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: minutesAfter(T0, -60) },
      });
      // Act + Assess
      expect(detect(crashingSnapshot(undefined, weekAgo))).toEqual([]);
      expect(detect(crashingSnapshot(undefined, longAgo))).toEqual([]);
    });

    it('a Pending controller pod is not this finding (KARPENTER_CONTROLLER_PENDING reports it)', () => {
      // Prepare
      const pending = karpenterPod({
        name: 'karpenter-5697769d6c-7lglp',
        containerStatuses: [containerStatus({ waiting: 'ContainerCreating' })],
      });
      const snapshot = snapshotOf({ pods: [pending], deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 0 })] });
      // Act + Assess
      expect(detect(snapshot)).toEqual([]);
    });

    it('a healthy controller and one without container statuses: nothing', () => {
      // Prepare
      const snapshot = snapshotOf({
        pods: [
          controller('karpenter-5697769d6c-cdwct', healthy()),
          karpenterPod({ name: 'karpenter-5697769d6c-w2r8h', nodeName: NODE }),
        ],
      });
      // Act + Assess
      expect(detect(snapshot)).toEqual([]);
    });
  });

  describe('causes', () => {
    it('OOM_KILLED without a memory limit: says the chart default sets none, and the steps set 1Gi', () => {
      // Prepare
      const status = crashLooping({ reason: 'OOMKilled', exitCode: 137 });
      // Act
      const [finding] = detect(crashingSnapshot([previous({ message: 'panic: leader election lost' })], status));
      // Assess
      expect(finding?.cause?.code).toBe('OOM_KILLED');
      expect(finding?.cause?.detail).toContain('was OOMKilled (exit code 137) after 14 restart(s)');
      expect(finding?.cause?.detail).toContain('no memory limit is set');
      expect(finding?.cause?.detail).toContain('controller.resources: {}');
      expect(finding?.evidence).toContain('memory limit: none, request: none');
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      expect(steps).toContain(
        'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n karpenter --reuse-values --set controller.resources.requests.memory=1Gi --set controller.resources.limits.memory=1Gi',
      );
      expect(steps).toContain('MEMORY_LIMIT');
      expect(steps).toContain(
        'kubectl set resources deployment -n karpenter karpenter -c controller --requests=memory=1Gi --limits=memory=1Gi',
      );
    });

    it('OOM_KILLED with a 1Gi limit and MEMORY_LIMIT: names both, and proposes twice the memory', () => {
      // Prepare
      const container: Container = {
        ...CONTROLLER,
        env: [{ name: 'MEMORY_LIMIT', value: '1073741824' }],
        resources: { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } },
      };
      const status = containerStatus({
        restarts: 4,
        lastTerminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: minutesAfter(T0, 50) },
      });
      // Act
      const [finding] = detect(crashingSnapshot(undefined, status, container));
      // Assess
      expect(finding?.cause?.code).toBe('OOM_KILLED');
      expect(finding?.cause?.detail).toContain('its memory limit is 1Gi (request 1Gi)');
      expect(finding?.cause?.detail).toContain('MEMORY_LIMIT=1073741824');
      expect(finding?.remediation?.steps.join('\n')).toContain('--set controller.resources.limits.memory=2Gi');
    });

    it.each([
      ['failed to renew lease karpenter/karpenter-leader-election: timed out waiting for the condition'],
      ['panic: Unable to start manager, leader election lost'],
      [
        'error retrieving resource lock karpenter/karpenter-leader-election: Get "https://172.20.0.1:443/apis/coordination.k8s.io/v1/namespaces/karpenter/leases/karpenter-leader-election": context deadline exceeded',
      ],
    ])('LEADER_ELECTION_LOST: "%s"', (message) => {
      // Prepare
      const logs = [previous({ message: 'Starting workers', level: 'INFO' }, 1), previous({ message }, 2)];
      // Act
      const [finding] = detect(crashingSnapshot(logs));
      // Assess
      expect(finding?.cause?.code).toBe('LEADER_ELECTION_LOST');
      expect(finding?.evidence).toContain(`karpenter-previous.log:2: ${message}`);
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      expect(steps).toContain('kubectl get lease -n karpenter karpenter-leader-election -o yaml');
      expect(steps).toContain('KUBE_CLIENT_QPS');
      expect(steps).toContain('apiserver_flowcontrol_rejected_requests_total');
    });

    it.each([
      [
        'STS web identity',
        {
          message: 'failed to get caller identity',
          error:
            'WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.eu-west-1.amazonaws.com/": dial tcp 52.94.7.128:443: i/o timeout',
        },
        ['sts'],
        'eu-west-1',
      ],
      [
        'EC2 connectivity check',
        {
          message: 'ec2 api connectivity check failed',
          error:
            'operation error EC2: DescribeInstanceTypes, https response error StatusCode: 0, RequestID: , canceled, context deadline exceeded',
        },
        ['ec2'],
        undefined,
      ],
      [
        'cluster endpoint',
        {
          message: 'failed detecting cluster endpoint',
          error: 'Get "https://eks.us-east-2.amazonaws.com/clusters/prod": dial tcp 3.33.152.147:443: i/o timeout',
        },
        ['eks'],
        'us-east-2',
      ],
      [
        'SSM parameter',
        {
          message: 'resolving ssm parameter, operation error SSM: GetParameter, https response error',
          // A public address: a private one is an endpoint that exists (VPC_ENDPOINT_BLOCKED, network-causes.test.ts).
          error: 'Post "https://ssm.us-east-2.amazonaws.com/": dial tcp 52.119.161.5:443: i/o timeout',
        },
        ['ssm'],
        'us-east-2',
      ],
      [
        'pricing',
        {
          message:
            'updating on-demand pricing, Post "https://api.pricing.us-east-1.amazonaws.com/": dial tcp 54.239.25.200:443: i/o timeout, using existing pricing data from 2025-12-15T00:00:00Z',
        },
        ['pricing'],
        'us-east-1',
      ],
    ])('AWS_API_UNREACHABLE: %s', (_name, fields, services, region) => {
      // Prepare
      const snapshot = crashingSnapshot([previous(fields, 7)]);
      snapshot.cluster = cluster({ name: 'demo' });
      snapshot.captured.add('cluster');
      // Act
      const [finding] = detect(snapshot);
      // Assess
      expect(finding?.cause?.code).toBe('AWS_API_UNREACHABLE');
      expect(finding?.cause?.detail).toContain(`cannot reach the AWS API of ${services.join(', ')}`);
      expect(finding?.evidence.some((e) => e.startsWith('karpenter-previous.log:7: '))).toBe(true);
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      const r = region ?? 'us-east-1'; // the factory cluster's ARN
      if (services[0] === 'pricing') {
        expect(steps).toContain('--set settings.isolatedVPC=true');
      } else {
        expect(steps).toContain(
          `aws ec2 create-vpc-endpoint --region ${r} --vpc-id "$vpc" --vpc-endpoint-type Interface --service-name com.amazonaws.${r}.${services[0]} --subnet-ids $subnets --security-group-ids "$sg" --private-dns-enabled`,
        );
      }
      if (services[0] === 'eks') expect(steps).toContain('settings.clusterEndpoint=');
    });

    it('AWS_API_UNREACHABLE names every service that timed out, from the previous and the current log', () => {
      // Prepare
      const logs = [
        previous({
          message: 'ec2 api connectivity check failed',
          error: 'Post "https://ec2.eu-west-1.amazonaws.com/": dial tcp 10.0.0.5:443: i/o timeout',
        }),
        {
          ...logLine(
            { level: 'ERROR', message: 'Post "https://sts.eu-west-1.amazonaws.com/": dial tcp 10.0.0.6:443: i/o timeout' },
            'karpenter.log:3',
          ),
        },
      ];
      // Act
      const [finding] = detect(crashingSnapshot(logs));
      // Assess
      expect(finding?.cause?.detail).toContain('cannot reach the AWS API of sts, ec2');
      expect(finding?.evidence.some((e) => e.startsWith('karpenter-previous.log:1: ec2 api connectivity check failed'))).toBe(
        true,
      );
    });

    it('a timeout to the Kubernetes API is not an AWS endpoint', () => {
      // Prepare
      const logs = [previous({ message: 'Get "https://172.20.0.1:443/api?timeout=32s": dial tcp 172.20.0.1:443: i/o timeout' })];
      // Act
      const [finding] = detect(crashingSnapshot(logs));
      // Assess
      expect(finding?.cause?.code).toBe('CRASH_LOOP');
    });

    it('CRASH_LOOP quotes the last error line of the previous log', () => {
      // Prepare
      const logs = [
        previous({ message: 'validating settings, unknown feature gate', error: 'SpotToSpotConsolidation=maybe' }, 3),
        previous({ level: 'INFO', message: 'shutting down' }, 4),
        logLine({ level: 'ERROR', message: 'an older error in the current log' }, 'karpenter.log:9'),
      ];
      // Act
      const [finding] = detect(crashingSnapshot(logs));
      // Assess
      expect(finding?.cause?.code).toBe('CRASH_LOOP');
      expect(finding?.cause?.detail).toContain(
        'the last error before the restart: "validating settings, unknown feature gate SpotToSpotConsolidation=maybe"',
      );
      expect(finding?.evidence).toContain(
        'karpenter-previous.log:3: validating settings, unknown feature gate SpotToSpotConsolidation=maybe',
      );
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      expect(steps).toContain('kubectl logs -n karpenter karpenter-5697769d6c-7lglp --previous --tail=200');
      expect(steps).toContain('kubectl describe pod -n karpenter karpenter-5697769d6c-7lglp');
    });

    it('never says the log holds no error when either log has an error-level line without a time', () => {
      // Prepare: lines read from files, as a capture gives them (no time, level only in the text)
      const variants: LogLine[][] = [
        asPreviousLog(readControllerLog('INFO\tstarting\nFATAL\tcontroller\tunable to load settings', 'karpenter-previous.log')),
        readControllerLog('ERROR\tcontroller\tfailed to start', 'karpenter.log'),
        readControllerLog('panic: runtime error: invalid memory address or nil pointer dereference', 'karpenter.log'),
      ];
      for (const logs of variants) {
        // Act
        const [finding] = detect(crashingSnapshot(logs));
        // Assess
        expect(finding?.cause?.code).toBe('CRASH_LOOP');
        expect(JSON.stringify(finding)).not.toMatch(/holds no error|no error in the captured/);
      }
    });

    it('CRASH_LOOP on a FATAL that AWS denied a call points at KARPENTER_IAM_DENIED instead of reading logs again', () => {
      // Prepare: the exact line of aws/karpenter-provider-aws#3584, with no time
      const logs = asPreviousLog(
        readControllerLog(
          'FATAL\tcontroller.aws\tunable to detect the cluster endpoint, failed to resolve cluster endpoint, AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-pay-eks/1678700083010048590 is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:us-west-2:111122223333:cluster/pay-eks',
          'karpenter-previous.log',
        ),
      );
      // Act
      const [finding] = detect(crashingSnapshot(logs));
      // Assess
      expect(finding?.cause?.code).toBe('CRASH_LOOP');
      expect(finding?.cause?.detail).toContain('because AWS denied eks:DescribeCluster to its role');
      expect(finding?.cause?.detail).toContain('KARPENTER_IAM_DENIED');
      expect(finding?.evidence.some((e) => e.startsWith('karpenter-previous.log:1: unable to detect the cluster endpoint'))).toBe(
        true,
      );
      const steps = finding?.remediation?.steps.join('\n') ?? '';
      expect(steps).toContain('Allow eks:DescribeCluster');
      expect(steps).not.toContain('--previous');
    });

    it('CRASH_LOOP from the termination message when no log says more', () => {
      // Prepare
      const status = crashLooping({
        message: 'open /var/run/secrets/eks.amazonaws.com/serviceaccount/token: no such file or directory',
      });
      // Act
      const [finding] = detect(crashingSnapshot([], status));
      // Assess
      expect(finding?.cause?.code).toBe('CRASH_LOOP');
      expect(finding?.cause?.detail).toContain(
        'termination message "open /var/run/secrets/eks.amazonaws.com/serviceaccount/token',
      );
    });

    it('UNKNOWN without logs: the command that fetches the previous log', () => {
      // Act
      const [finding] = detect(crashingSnapshot());
      // Assess
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.cause?.detail).toContain('no controller log was captured');
      expect(finding?.remediation?.steps.join('\n')).toContain(
        'kubectl logs -n karpenter karpenter-5697769d6c-7lglp --previous --tail=200 > karpenter-previous.log',
      );
    });

    it('UNKNOWN when the captured logs hold no error', () => {
      // Act
      const [finding] = detect(crashingSnapshot([logLine({ level: 'INFO', message: 'Starting workers' })]));
      // Assess
      expect(finding?.cause?.code).toBe('UNKNOWN');
      expect(finding?.cause?.detail).toContain('holds no error');
    });
  });

  it('hostile names are quoted in every step', () => {
    // Prepare
    const ns = "karpenter';touch PWNED;'";
    const pod = karpenterPod({
      name: 'karpenter-$(touch PWNED)',
      namespace: ns,
      nodeName: NODE,
      ready: false,
      spec: { containers: [CONTROLLER] },
      containerStatuses: [crashLooping({ reason: 'OOMKilled', exitCode: 137 })],
    });
    // Act
    const [finding] = detect(snapshotOf({ pods: [pod] }));
    // Assess
    const steps = finding?.remediation?.steps.join('\n') ?? '';
    expect(steps).toContain(`kubectl describe pod -n 'karpenter'\\'';touch PWNED;'\\''' 'karpenter-$(touch PWNED)'`);
    expect(steps).not.toMatch(/ karpenter-\$\(touch/);
  });
});
