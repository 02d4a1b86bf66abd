import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError, NothingReadableError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { captureDir, EMPTY_LIST_JSON, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const CONVERSION_FAILED =
  'conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed: Post "https://karpenter.karpenter.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: {},
  status: { phase: 'Running' },
};

describe('loadSnapshot: a capture of a broken cluster, with broken files among good ones', () => {
  it('turns every bad file into a gap or a note naming it, and reads the rest', async () => {
    // Prepare
    const dir = await captureDir({
      'pods.json': kubeList([pod]),
      'nodes.json': EMPTY_LIST_JSON,
      'nodeclaims.json': `Error from server (InternalError): Internal error occurred: ${CONVERSION_FAILED}\n`,
      'nodepools.json': '',
      'fargate-profiles.json':
        '\nAn error occurred (AccessDeniedException) when calling the ListFargateProfiles operation: User is not authorized\n',
      'instances.json': '\nCould not connect to the endpoint URL: "https://ec2.us-east-1.amazonaws.com/"\n',
      'notes.txt': 'asked Bob about the NodePool, he says it is fine\n',
      'capture.sh': '#!/bin/sh\nkubectl get pods -A -o json > pods.json 2>&1\n',
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['web']);
    expect([...snapshot.captured].sort()).toEqual(['nodes', 'pods']);
    expect(snapshot.gaps).toEqual(
      expect.arrayContaining([
        { source: 'nodeclaims', error: CONVERSION_FAILED },
        { source: 'fargateprofiles', error: 'ListFargateProfiles failed: AccessDeniedException: User is not authorized' },
        {
          source: 'instances',
          error:
            'aws ec2 describe-instances failed: Could not connect to the endpoint URL: "https://ec2.us-east-1.amazonaws.com/"',
        },
        {
          source: 'nodepools',
          error: `${join(dir, 'nodepools.json')}: empty file: the command that wrote it printed nothing; run it again (\`> file 2>&1\` keeps its error)`,
        },
      ]),
    );
    expect(snapshot.gaps).toHaveLength(4);
    for (const name of ['nodepools.json', 'instances.json', 'notes.txt', 'capture.sh']) {
      expect(notices.filter((n) => n.startsWith(`${join(dir, name)}: `) && n.includes('left out'))).toHaveLength(1);
    }
    expect(notices.find((n) => n.startsWith(join(dir, 'capture.sh')))).toContain('a script, not a kubectl or aws CLI output');
  });

  it.each([
    [
      'kubectl get nodepools,nodeclaims (the error before the output)',
      `Error from server: ${CONVERSION_FAILED}\n${EMPTY_LIST_JSON}`,
    ],
    [
      'the form wrapped before Post (seed 004)',
      'Error: conversion webhook for karpenter.sh/v1beta1, Kind=NodeClaim failed:\nPost "https://karpenter.kube-system.svc:8443/?timeout=30s": service "karpenter" not found\n',
    ],
  ])('reads a conversion webhook failure as a nodeclaims gap: %s', async (_name, text) => {
    // Prepare
    const dir = await captureDir({ 'karpenter.json': text, 'pods.json': kubeList([pod]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.gaps).toEqual([
      {
        source: 'nodeclaims',
        error: expect.stringMatching(
          /^conversion webhook for karpenter\.sh\/v1beta1, Kind=NodeClaim failed:\s*Post "https:\/\/karpenter\./,
        ),
      },
    ]);
  });

  it('reads a missing aws-auth as "none exists": authentication mode API has none', async () => {
    // Prepare
    const dir = await captureDir({ 'aws-auth.yaml': 'Error from server (NotFound): configmaps "aws-auth" not found\n' });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured.has('configmaps')).toBe(true);
    expect(snapshot.configMaps).toEqual([]);
    expect(snapshot.gaps).toEqual([]);
  });

  it('makes a file over --max-file-size a gap, not the end of the run', async () => {
    // Prepare
    const dir = await captureDir({ 'pods.json': kubeList([pod]), 'events.json': `${' '.repeat(2000)}${EMPTY_LIST_JSON}` });

    // Act
    const { snapshot } = await loadSnapshot([dir], { maxFileBytes: 1000 });

    // Assess
    expect(snapshot.pods).toHaveLength(1);
    expect(snapshot.gaps).toEqual([
      { source: 'events', error: expect.stringMatching(/events\.json: is more than .* raise it with --max-file-size/) },
    ]);
  });

  it('stops with every file named when none could be read', async () => {
    // Prepare
    const dir = await captureDir({
      'a.json': '',
      'b.txt': 'hello\n',
      'pods.json': 'error: You must be logged in to the server (Unauthorized)\n',
    });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(NothingReadableError);
    const files = (error as NothingReadableError).files;
    expect(files.map((f) => f.slice(0, f.indexOf(': ')))).toEqual(['a.json', 'b.txt', 'pods.json'].map((n) => join(dir, n)));
  });

  it('keeps the one-line error of a single file that cannot be read', async () => {
    // Prepare
    const dir = await captureDir({ 'pods.json': '' });

    // Act
    const error = await loadSnapshot([join(dir, 'pods.json')]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toMatch(/pods\.json: empty file/);
  });
});

describe('loadSnapshot: a taint or a selector requirement without its key', () => {
  it('sets that one object aside with a note naming the field; the others load', async () => {
    // Prepare
    const node = (name: string, taint: object) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      spec: { taints: [taint] },
    });
    const nodePool = (name: string, requirement: object) => ({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name },
      spec: { template: { spec: { requirements: [requirement] } } },
    });
    const dir = await captureDir({
      'nodes.json': kubeList([
        node('a', { effect: 'NoSchedule' }),
        node('b', { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }),
      ]),
      'nodepools.json': kubeList([
        nodePool('keyless', { key: null, operator: 'In', values: ['spot'] }),
        nodePool('default', { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }),
      ]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodes.map((n) => n.metadata?.name)).toEqual(['b']);
    expect(snapshot.nodePools.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(notices).toEqual(
      expect.arrayContaining([
        `${join(dir, 'nodes.json')}: Node a: spec.taints[0].key is missing, expected a string; object set aside`,
        `${join(dir, 'nodepools.json')}: NodePool keyless: spec.template.spec.requirements[0].key is null, expected a string; object set aside`,
      ]),
    );
  });
});

describe('loadSnapshot: a v1beta1 NodePool whose disruption.expireAfter is not a string', () => {
  it('sets that NodePool aside with a note naming the field; a well-typed one loads', async () => {
    // Prepare
    const nodePool = (name: string, expireAfter: unknown) => ({
      apiVersion: 'karpenter.sh/v1beta1',
      kind: 'NodePool',
      metadata: { name },
      spec: { disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter } },
    });
    const dir = await captureDir({
      'nodepools.json': kubeList([nodePool('numeric', 5), nodePool('default', '720h')]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodePools.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(notices).toContain(
      `${join(dir, 'nodepools.json')}: NodePool numeric: spec.disruption.expireAfter is a number, expected a string; object set aside`,
    );
  });
});
