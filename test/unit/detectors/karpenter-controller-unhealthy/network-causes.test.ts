/**
 * A controller whose calls to AWS time out gets the cause its error text and the capture prove
 * (docs/findings.md, KARPENTER_CONTROLLER_UNHEALTHY): DNS, a filtered endpoint, or a missing route.
 * The log lines are the ones real incidents reported (test/incidents/*): each case also plants the
 * evidence that contradicts the other causes' fixes and asserts those fixes are not printed.
 */
import { describe, expect, it } from 'vitest';
import { controllerUnhealthy } from '../../../../src/detectors/karpenter-controller-unhealthy/detector.ts';
import type { LogLine } from '../../../../src/domain/aws.ts';
import type { Finding } from '../../../../src/domain/finding.ts';
import type { Pod, PodSpec } from '../../../../src/domain/kube.ts';
import { DEFAULT_DETECTION } from '../../../../src/domain/settings.ts';
import type { ClusterSnapshot } from '../../../../src/domain/snapshot.ts';
import { SnapshotIndex } from '../../../../src/domain/snapshot-index.ts';
import { analyze } from '../../../../src/usecases/analyze.ts';
import { CLI_ACTIONS } from '../../../../src/domain/settings.ts';
import { cluster, logLine, snapshotOf } from '../../../factories/aws.ts';
import { T0, containerStatus, karpenterDeployment, karpenterPod, minutesAfter, pod } from '../../../factories/kube.ts';
import { priceBookOf } from '../../../../src/domain/price-book.ts';

const NOW = minutesAfter(T0, 60);
const NODE = 'fargate-ip-10-0-101-37.ec2.internal';

// test/incidents/fargate-dnspolicy-sts-lookup-timeout (aws/karpenter-provider-aws#5817).
const STS_LOOKUP_TIMEOUT =
  'Checking EC2 API connectivity, WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.us-east-1.amazonaws.com/": dial tcp: lookup sts.us-east-1.amazonaws.com: i/o timeout';
// Go's resolver error when a server answered NXDOMAIN (net.DNSError), as an STS call prints it.
const STS_NO_SUCH_HOST =
  'WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.us-east-1.amazonaws.com/": dial tcp: lookup sts.us-east-1.amazonaws.com on 172.20.0.10:53: no such host';
// test/incidents/vpc-endpoint-sg-secondary-cidr (aws/karpenter-provider-aws#3188).
const STS_PRIVATE_TIMEOUT = 'caused by: Post "https://sts.us-east-2.amazonaws.com/": dial tcp 10.188.214.212:443: i/o timeout';
// test/incidents/private-cluster-no-sts-endpoint (aws/karpenter-provider-aws#1157).
const STS_PUBLIC_TIMEOUT =
  'fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: Post "https://sts.ap-south-1.amazonaws.com/": dial tcp 52.95.84.35:443: i/o timeout';

function previous(message: string, level = 'FATAL'): LogLine {
  return { ...logLine({ level, time: minutesAfter(T0, 56), message }, 'karpenter-previous.log:1'), previous: true };
}

function crashing(spec: Partial<PodSpec>, podIP?: string): Pod {
  const p = karpenterPod({
    name: 'karpenter-7b9c5d6f8d-4kx2p',
    nodeName: NODE,
    ready: false,
    spec: { containers: [{ name: 'controller' }], ...spec },
    containerStatuses: [
      containerStatus({
        restarts: 8,
        waiting: 'CrashLoopBackOff',
        lastTerminated: { reason: 'Error', exitCode: 1, finishedAt: minutesAfter(T0, 57) },
      }),
    ],
  });
  return podIP ? { ...p, status: { ...p.status, podIP } } : p;
}

const coreDns = (phase: 'Running' | 'Pending', name = 'coredns-54d6f577c6-8xq5w') =>
  pod({
    name,
    namespace: 'kube-system',
    labels: { 'k8s-app': 'kube-dns' },
    ...(phase === 'Running' ? { nodeName: 'ip-10-0-1-10.ec2.internal' } : {}),
  });

function scan(parts: { pods?: Pod[]; logs: LogLine[] } & Partial<ClusterSnapshot>): Finding | undefined {
  const snapshot = snapshotOf({
    ...(parts.pods ? { pods: parts.pods, deployments: [karpenterDeployment({ replicas: 1, readyReplicas: 0 })] } : {}),
    logs: parts.logs,
    ...(parts.subnets ? { subnets: parts.subnets } : {}),
    cluster: cluster({ name: 'fargate-bootstrap' }),
  });
  return controllerUnhealthy.detect({
    snapshot,
    index: new SnapshotIndex(snapshot),
    prices: priceBookOf(snapshot),
    settings: DEFAULT_DETECTION,
    now: new Date(NOW),
  })[0];
}

const stepsOf = (f: Finding | undefined) => f?.remediation?.steps ?? [];
const text = (f: Finding | undefined) => stepsOf(f).join('\n');
const indexOf = (f: Finding | undefined, needle: string) => stepsOf(f).findIndex((s) => s.includes(needle));

describe('KARPENTER_CONTROLLER_UNHEALTHY network causes', () => {
  describe('DNS_RESOLUTION_FAILED: the lookup failed, so no route or endpoint is involved', () => {
    it('ClusterFirst while every CoreDNS pod is Pending: the check, then dnsPolicy Default', () => {
      // Prepare: the Fargate incident, the chart's dnsPolicy and CoreDNS with no node to run on.
      const f = scan({
        pods: [crashing({ dnsPolicy: 'ClusterFirst' }), coreDns('Pending'), coreDns('Pending', 'coredns-54d6f577c6-jt2lb')],
        logs: [previous(STS_LOOKUP_TIMEOUT)],
      });
      // Assess
      expect(f?.cause?.code).toBe('DNS_RESOLUTION_FAILED');
      expect(f?.cause?.detail).toContain('no CoreDNS pod is running (0 of 2)');
      expect(f?.evidence).toContain('controller dnsPolicy: ClusterFirst');
      const check = indexOf(f, 'kubectl get pods -n kube-system -l k8s-app=kube-dns');
      const fix = indexOf(f, '--set dnsPolicy=Default');
      expect(check).toBeGreaterThan(0);
      expect(fix).toBeGreaterThan(check);
      expect(text(f)).not.toContain('create-vpc-endpoint');
    });

    it('an unset dnsPolicy is ClusterFirst', () => {
      const f = scan({ pods: [crashing({}), coreDns('Pending')], logs: [previous(STS_LOOKUP_TIMEOUT)] });
      expect(f?.evidence).toContain('controller dnsPolicy: ClusterFirst (unset)');
      expect(text(f)).toContain('--set dnsPolicy=Default');
    });

    it('dnsPolicy Default with CoreDNS Running: the VPC resolver is checked, the ClusterFirst fix is not printed', () => {
      // Prepare: contradicting evidence for the ClusterFirst reading.
      const f = scan({ pods: [crashing({ dnsPolicy: 'Default' }), coreDns('Running')], logs: [previous(STS_LOOKUP_TIMEOUT)] });
      // Assess
      expect(f?.cause?.code).toBe('DNS_RESOLUTION_FAILED');
      expect(f?.cause?.detail).toContain("it asks the VPC's resolver");
      expect(text(f)).toContain('--attribute enableDnsSupport');
      expect(text(f)).not.toContain('dnsPolicy=Default');
      expect(text(f)).not.toContain('create-vpc-endpoint');
    });

    it('ClusterFirst on the host network asks the VPC resolver too (Kubernetes turns it into Default)', () => {
      const f = scan({
        pods: [crashing({ dnsPolicy: 'ClusterFirst', hostNetwork: true }), coreDns('Pending')],
        logs: [previous(STS_LOOKUP_TIMEOUT)],
      });
      expect(f?.evidence).toContain('controller dnsPolicy: ClusterFirst with hostNetwork');
      expect(text(f)).not.toContain('dnsPolicy=Default');
    });

    it('ClusterFirst with CoreDNS Running: CoreDNS and network policies are checked, dnsPolicy is left alone', () => {
      const f = scan({
        pods: [crashing({ dnsPolicy: 'ClusterFirst' }), coreDns('Running')],
        logs: [previous(STS_LOOKUP_TIMEOUT)],
      });
      expect(f?.cause?.detail).toContain('CoreDNS runs (1 of 1 pods)');
      expect(text(f)).toContain('kubectl logs -n kube-system -l k8s-app=kube-dns');
      expect(text(f)).toContain('kubectl get networkpolicy -n karpenter');
      expect(text(f)).not.toContain('dnsPolicy=Default');
    });

    it('ClusterFirst with CoreDNS not captured: the CoreDNS check leads, the fix is conditional on it', () => {
      const f = scan({ pods: [crashing({ dnsPolicy: 'ClusterFirst' })], logs: [previous(STS_LOOKUP_TIMEOUT)] });
      expect(f?.cause?.detail).toContain('CoreDNS was not captured');
      const check = indexOf(f, 'kubectl get pods -n kube-system -l k8s-app=kube-dns');
      const fix = indexOf(f, '--set dnsPolicy=Default');
      expect(check).toBeGreaterThan(0);
      expect(fix).toBeGreaterThan(check);
      expect(stepsOf(f)[fix]).toContain('# if none of them is Running');
    });

    it('no such host: a resolver answered, so neither CoreDNS being down nor dnsPolicy is the fix', () => {
      const f = scan({
        pods: [crashing({ dnsPolicy: 'ClusterFirst' }), coreDns('Pending')],
        logs: [previous(STS_NO_SUCH_HOST, 'ERROR')],
      });
      expect(f?.cause?.code).toBe('DNS_RESOLUTION_FAILED');
      expect(f?.cause?.detail).toContain('a resolver answered that sts.us-east-1.amazonaws.com does not exist');
      expect(text(f)).toContain('aws route53 list-hosted-zones-by-vpc');
      expect(text(f)).not.toContain('dnsPolicy=Default');
      expect(text(f)).not.toContain('create-vpc-endpoint');
    });
  });

  describe('VPC_ENDPOINT_BLOCKED: the name resolved to a private address, so the endpoint exists', () => {
    it('the secondary-CIDR incident: who owns the address and its security group first, no endpoint created', () => {
      // Prepare
      const f = scan({ pods: [crashing({ dnsPolicy: 'ClusterFirst' }, '100.64.12.38')], logs: [previous(STS_PRIVATE_TIMEOUT)] });
      // Assess
      expect(f?.cause?.code).toBe('VPC_ENDPOINT_BLOCKED');
      expect(f?.cause?.detail).toContain('resolved to 10.188.214.212, a private address');
      expect(f?.evidence).toContain('controller pod addresses: 100.64.12.38');
      const owner = indexOf(f, 'Name=addresses.private-ip-address,Values=10.188.214.212');
      const rules = indexOf(f, 'aws ec2 describe-security-groups');
      const fix = indexOf(f, 'authorize-security-group-ingress');
      expect(owner).toBeGreaterThan(0);
      expect(rules).toBeGreaterThan(owner);
      expect(fix).toBeGreaterThan(rules);
      expect(text(f)).toContain('Name=service-name,Values=com.amazonaws.us-east-2.sts');
      expect(text(f)).not.toContain('create-vpc-endpoint');
    });

    it('an address in a captured subnet counts as the VPC, whatever its range', () => {
      const f = scan({
        pods: [crashing({})],
        logs: [previous('caused by: Post "https://sts.us-east-2.amazonaws.com/": dial tcp 52.95.84.35:443: i/o timeout')],
        subnets: [{ id: 'subnet-0a1b2c3d4e5f60718', vpcId: 'vpc-0123', cidrBlock: '52.95.84.0/24', tags: {} }],
      });
      expect(f?.cause?.code).toBe('VPC_ENDPOINT_BLOCKED');
      expect(f?.cause?.detail).toContain('in subnet subnet-0a1b2c3d4e5f60718 (52.95.84.0/24)');
      expect(text(f)).not.toContain('create-vpc-endpoint');
    });

    it("a proxy's private address says nothing of AWS's: not read as a filtered endpoint", () => {
      const f = scan({
        pods: [crashing({})],
        logs: [previous('Post "https://sts.us-east-2.amazonaws.com/": proxyconnect tcp: dial tcp 10.0.12.7:3128: i/o timeout')],
      });
      expect(f?.cause?.code).toBe('AWS_API_UNREACHABLE');
    });
  });

  describe('AWS_API_UNREACHABLE: a public address, no endpoint answered and no route out', () => {
    it('keeps the endpoint steps, after the list of the endpoints the VPC has', () => {
      const f = scan({ pods: [crashing({})], logs: [previous(STS_PUBLIC_TIMEOUT, 'ERROR')] });
      expect(f?.cause?.code).toBe('AWS_API_UNREACHABLE');
      expect(f?.cause?.detail).toContain('52.95.84.35 is a public address');
      const list = indexOf(f, "--query 'VpcEndpoints[].[ServiceName,State]'");
      const create = indexOf(f, 'create-vpc-endpoint');
      expect(list).toBeGreaterThan(0);
      expect(create).toBeGreaterThan(list);
      expect(text(f)).not.toContain('dnsPolicy');
    });
  });

  describe('a capture of the controller log alone', () => {
    const logOnly = (logs: LogLine[]) => {
      // What a scan of a capture that names no cluster calls it (src/snapshot/cluster-name.ts).
      const snapshot = snapshotOf({ logs }, 'unknown');
      const report = analyze(snapshot, { detection: DEFAULT_DETECTION, actions: CLI_ACTIONS, now: new Date(NOW) });
      return report.findings.filter((f) => f.code === 'KARPENTER_CONTROLLER_UNHEALTHY');
    };
    const current = (message: string, level: string, minute = 56): LogLine =>
      logLine({ level, time: minutesAfter(T0, minute), message }, 'karpenter.log:1');

    it('credentials that time out are a finding: the private-cluster incident', () => {
      const [f, ...more] = logOnly([current(STS_PUBLIC_TIMEOUT, 'ERROR')]);
      expect(more).toEqual([]);
      expect(f?.cause?.code).toBe('AWS_API_UNREACHABLE');
      expect(f?.severity).toBe('critical');
      expect(f?.resource).toEqual({ kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
      // No describe-cluster captured: the cluster's name is asked for, not made up.
      expect(text(f)).toContain('--name "$CLUSTER_NAME"');
      expect(text(f)).toContain('kubectl logs -n karpenter deployment/karpenter --tail=200');
    });

    it('a lookup timeout in a log alone: the dnsPolicy is checked first, not assumed', () => {
      const [f] = logOnly([current(STS_LOOKUP_TIMEOUT, 'FATAL')]);
      expect(f?.cause?.code).toBe('DNS_RESOLUTION_FAILED');
      const policy = indexOf(f, 'DNS_POLICY:.spec.dnsPolicy');
      const fix = indexOf(f, '--set dnsPolicy=Default');
      expect(policy).toBeGreaterThan(0);
      expect(fix).toBeGreaterThan(policy);
    });

    it.each([
      [
        'a pricing refresh warning (Karpenter works on its built-in prices)',
        current(
          'updating on-demand pricing, Post "https://api.pricing.us-east-1.amazonaws.com/": dial tcp 54.239.25.200:443: i/o timeout, using existing pricing data from 2025-12-15T00:00:00Z',
          'WARN',
        ),
      ],
      [
        "an EC2NodeClass's instance profile through IAM (NODECLASS_NOT_READY's)",
        current(
          'Reconciler error resolving instance profile, getting instance profile "REDACTED", RequestError: send request failed\ncaused by: Post "https://iam.amazonaws.com/": dial tcp 52.46.159.95:443: i/o timeout',
          'ERROR',
        ),
      ],
    ])('no finding for %s', (_name, line) => {
      expect(logOnly([line])).toEqual([]);
    });

    it('no finding once the timeouts stopped an hour before the newest line', () => {
      const logs = [current(STS_PUBLIC_TIMEOUT, 'ERROR', 0), current('Starting workers', 'INFO', 90)];
      expect(logOnly(logs)).toEqual([]);
    });
  });
});
