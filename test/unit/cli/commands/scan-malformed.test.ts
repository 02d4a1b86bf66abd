/**
 * Issue 11: one field of the wrong type used to end `scan --from` with `internal error: … is not a
 * function`, naming no file. Now the object is set aside with a note, its source is a gap, and the
 * rest of the capture is diagnosed as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES_NOW } from '../../../../src/cli/commands/demo.ts';
import type { Report } from '../../../../src/domain/report.ts';
import { ec2NodeClass } from '../../../factories/karpenter.ts';
import { node, pod } from '../../../factories/kube.ts';
import { captureDir, kubeList, removeCaptureDirs } from '../../snapshot/capture-dir.ts';
import { run } from '../cli-harness.ts';

afterEach(removeCaptureDirs);

const EXAMPLES = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const example = (path: string) => readFileSync(join(EXAMPLES, path), 'utf8');

/** The controller Pending on an untolerated taint, and an EC2NodeClass selecting AMIs without an owner. */
const BASE = {
  'cluster.json': example('controller-untolerated-taint/cluster.json'),
  'deployment.yaml': example('controller-untolerated-taint/deployment.yaml'),
  'events.json': example('controller-untolerated-taint/events.json'),
  'nodes.json': example('controller-untolerated-taint/nodes.json'),
  'pods.yaml': example('controller-untolerated-taint/pods.yaml'),
  'ec2nodeclass-default.yaml': example('ami-selector-unscoped/ec2nodeclass-default.yaml'),
};
const BASE_FINDINGS = [
  ['KARPENTER_CONTROLLER_PENDING', 'UNTOLERATED_TAINT'],
  ['AMI_SELECTOR_UNSCOPED', 'NO_OWNER'],
];

const web = pod({ name: 'web-1', namespace: 'shop', nodeName: 'ip-10-0-12-37.eu-central-1.compute.internal' });

const CASES = [
  {
    what: 'amiSelectorTerms: "x"',
    object: { ...ec2NodeClass({ name: 'other' }), spec: { amiSelectorTerms: 'x' } },
    source: 'ec2nodeclasses',
    note: 'EC2NodeClass other: spec.amiSelectorTerms is a string, expected a list',
  },
  {
    what: 'taints: true',
    object: { ...node({ name: 'ip-10-0-99-1.eu-central-1.compute.internal' }), spec: { taints: true } },
    source: 'nodes',
    note: 'Node ip-10-0-99-1.eu-central-1.compute.internal: spec.taints is true, expected a list',
  },
  {
    what: 'ownerReferences[0].name: {}',
    object: { ...web, metadata: { ...web.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: {} }] } },
    source: 'pods',
    note: 'Pod shop/web-1: metadata.ownerReferences[0].name is an object, expected a string',
  },
  {
    what: 'env: [null]',
    object: { ...web, spec: { ...web.spec, containers: [{ name: 'web', image: 'nginx', env: [null] }] } },
    source: 'pods',
    note: 'Pod shop/web-1: spec.containers[0].env[0] is null, expected an object',
  },
];

describe('scan --from a capture with one object of the wrong shape', () => {
  it('diagnoses the capture as it is without the broken object', async () => {
    const dir = await captureDir(BASE);

    const result = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW, '--output', 'json']);

    const report = JSON.parse(result.stdout) as Report;
    expect(report.findings.map((f) => [f.code, f.cause?.code])).toEqual(BASE_FINDINGS);
    expect(report.complete).toBe(true);
  });

  it.each(CASES)('$what: a one-line note naming file, object and field; a gap; the other findings kept', async (c) => {
    const dir = await captureDir({ ...BASE, 'extra.json': kubeList([c.object]) });

    const result = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW, '--output', 'json']);

    expect(result.code).toBe(1); // findings at or above --fail-on warning, not an internal error (2)
    expect(result.stderr.split('\n')).toContain(`note: ${join(dir, 'extra.json')}: ${c.note}; object set aside`);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.complete).toBe(false);
    expect(report.gaps).toEqual([{ source: c.source, error: '1 object set aside as malformed (see notes)' }]);
    expect(report.findings.map((f) => [f.code, f.cause?.code])).toEqual(BASE_FINDINGS);
  });

  it('the same in YAML, and in the table a user reads', async () => {
    const [c] = CASES;
    const dir = await captureDir({ ...BASE, 'extra.yaml': `${JSON.stringify(c!.object)}\n` });

    const result = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`note: ${join(dir, 'extra.yaml')}: ${c!.note}; object set aside\n`);
    expect(result.stdout).toContain('ec2nodeclasses: 1 object set aside as malformed (see notes)');
    expect(result.stdout).toContain('KARPENTER_CONTROLLER_PENDING');
  });

  it('--simulate reports what --from reports: the object not served, the same gap, no source denied', async () => {
    const c = CASES[1]!;
    const dir = await captureDir({ ...BASE, 'extra.json': kubeList([c.object]) });

    const offline = await run(['scan', '--from', dir, '--now', EXAMPLES_NOW, '--output', 'json']);
    const simulated = await run(['scan', '--simulate', dir, '--now', EXAMPLES_NOW, '--output', 'json']);

    expect(simulated.code).toBe(offline.code);
    const [a, b] = [offline, simulated].map((r) => JSON.parse(r.stdout) as Report);
    expect(b!.gaps).toEqual(a!.gaps);
    expect(b!.findings.map((f) => [f.code, f.cause?.code])).toEqual(a!.findings.map((f) => [f.code, f.cause?.code]));
  });
});
