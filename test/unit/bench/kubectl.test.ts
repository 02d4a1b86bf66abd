import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_PODS_STEP, CRDS_LABEL, kubectlFetchPlan, LOG_LABEL, queryLabel } from '../../../bench/kubectl.ts';
import { KUBE_LISTS, PENDING_PODS } from '../../../src/collect/kube-sources.ts';

const argsOf = (label: string) => kubectlFetchPlan('karpenter').find((s) => s.label === label)?.args;

describe('kubectlFetchPlan', () => {
  it('has one kubectl command per query the collector makes, each labelled as the scan labels its calls', () => {
    // Act
    const plan = kubectlFetchPlan('karpenter');

    // Assess
    const collectorQueries = [PENDING_PODS, ...KUBE_LISTS.flatMap((l) => l.queries)].map(queryLabel);
    expect(plan.map((s) => s.label)).toEqual(expect.arrayContaining([...collectorQueries, CRDS_LABEL, LOG_LABEL]));
    expect(new Set(plan.map((s) => s.label)).size).toBe(plan.length);
    // 15 before issue 24, then one list each of Validating and Mutating webhook configurations.
    expect(plan).toHaveLength(17);
  });

  it("BENCHMARKS.md's list of commands says how it differs from the plan when it lists fewer than the plan holds", () => {
    // Arrange
    const page = readFileSync(new URL('../../../BENCHMARKS.md', import.meta.url), 'utf8');
    const paragraph = page.split('\n').find((line) => line.startsWith('The commands, in order:')) ?? '';
    const listed = paragraph.match(/`kubectl (?:get|logs) [^`]*`/g) ?? [];
    const plan = kubectlFetchPlan('karpenter');

    // Assess
    expect(paragraph).not.toBe('');
    if (listed.length !== plan.length) {
      expect(paragraph).not.toContain('The same queries the collector makes');
      expect(paragraph).toContain(`the bench plan has ${plan.length} commands`);
    }
  });

  it('keeps the collector selectors and scope: Pending pods by field, the controller by label, aws-auth in kube-system', () => {
    // Act / Assess
    expect(argsOf('pods status.phase=Pending')).toEqual([
      'get',
      'pods',
      '-A',
      '--field-selector',
      'status.phase=Pending',
      '-o',
      'json',
    ]);
    expect(argsOf('pods app.kubernetes.io/name=karpenter')).toEqual([
      'get',
      'pods',
      '-A',
      '-l',
      'app.kubernetes.io/name=karpenter',
      '-o',
      'json',
    ]);
    expect(argsOf('replicasets app.kubernetes.io/name=karpenter')).toEqual([
      'get',
      'replicasets.v1.apps',
      '-A',
      '-l',
      'app.kubernetes.io/name=karpenter',
      '-o',
      'json',
    ]);
    expect(argsOf('configmaps kube-system metadata.name=aws-auth')).toEqual([
      'get',
      'configmaps',
      '-n',
      'kube-system',
      '--field-selector',
      'metadata.name=aws-auth',
      '-o',
      'json',
    ]);
  });

  it('names events as events.k8s.io/v1 (what the collector reads) and cluster-scoped resources without -A', () => {
    // Act / Assess
    expect(argsOf('events')).toEqual(['get', 'events.v1.events.k8s.io', '-A', '-o', 'json']);
    expect(argsOf('nodes')).toEqual(['get', 'nodes', '-o', 'json']);
    expect(argsOf('nodeclaims')).toEqual(['get', 'nodeclaims.v1.karpenter.sh', '-o', 'json']);
    expect(argsOf('ec2nodeclasses')).toEqual(['get', 'ec2nodeclasses.v1.karpenter.k8s.aws', '-o', 'json']);
  });

  it('reads the three Karpenter CRDs by name in one command and the controller log by label in its namespace', () => {
    // Act / Assess
    expect(argsOf(CRDS_LABEL)).toEqual([
      'get',
      'customresourcedefinitions.v1.apiextensions.k8s.io',
      'nodeclaims.karpenter.sh',
      'nodepools.karpenter.sh',
      'ec2nodeclasses.karpenter.k8s.aws',
      '-o',
      'json',
    ]);
    expect(kubectlFetchPlan('kube-system').find((s) => s.label === LOG_LABEL)?.args).toEqual([
      'logs',
      '-n',
      'kube-system',
      '-l',
      'app.kubernetes.io/name=karpenter',
      '-c',
      'controller',
      '--tail=500',
    ]);
  });

  it('leaves all pods out (a healthy controller), and the context step lists every pod', () => {
    // Act / Assess
    expect(kubectlFetchPlan('karpenter').some((s) => s.label === 'pods')).toBe(false);
    expect(ALL_PODS_STEP.args).toEqual(['get', 'pods', '-A', '-o', 'json']);
  });
});
