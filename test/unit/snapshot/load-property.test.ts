import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InputError, NothingReadableError, UsageError } from '../../../src/domain/errors.ts';
import { SOURCE_NAMES } from '../../../src/domain/snapshot.ts';
import { loadSnapshot, snapshotFromFiles, type LoadResult } from '../../../src/snapshot/load.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

/** Anything at all, or something shaped enough like a capture to reach the readers' inner code. */
const anything = fc.jsonValue({ maxDepth: 3 });
/** Mostly the expected shape, sometimes anything: deep enough to reach every reader's branches. */
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 5 }, { arbitrary: anything, weight: 1 });
const labels = maybe(fc.dictionary(fc.string(), maybe(fc.string()), { maxKeys: 3 }));
const time = maybe(fc.constantFrom('2025-12-28T20:35:39Z', '', null));

const typeMeta = fc.constantFrom(
  ['v1', 'Pod'],
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'ReplicaSet'],
  ['v1', 'Node'],
  ['v1', 'Event'],
  ['events.k8s.io/v1', 'Event'],
  ['v1', 'ConfigMap'],
  ['v1', 'Service'],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
  ['karpenter.sh/v1', 'NodeClaim'],
  ['karpenter.sh/v1beta1', 'NodePool'],
  ['karpenter.k8s.aws/v1', 'EC2NodeClass'],
  ['v1', 'Secret'],
  ['apps/v1', 'DaemonSet'],
);
const container = fc.record({
  name: maybe(fc.string()),
  env: maybe(fc.array(maybe(fc.record({ name: maybe(fc.constant('CLUSTER_NAME')), value: maybe(fc.string()) })))),
});
const kubeObject = fc
  .record(
    {
      typeMeta: maybe(typeMeta),
      metadata: maybe(
        fc.record({ name: maybe(fc.string()), namespace: maybe(fc.string()), labels, annotations: labels }, { requiredKeys: [] }),
      ),
      spec: maybe(
        fc.record(
          {
            template: maybe(
              fc.record({
                metadata: maybe(fc.record({ labels })),
                spec: maybe(fc.record({ containers: maybe(fc.array(container)) })),
              }),
            ),
            containers: maybe(fc.array(container)),
          },
          { requiredKeys: [] },
        ),
      ),
      status: maybe(
        fc.record(
          { conditions: maybe(fc.array(fc.record({ type: maybe(fc.string()), status: anything }))) },
          { requiredKeys: [] },
        ),
      ),
      involvedObject: maybe(fc.record({ kind: maybe(fc.string()), name: maybe(fc.string()) })),
      regarding: anything,
      series: maybe(fc.record({ count: anything, lastObservedTime: time }, { requiredKeys: [] })),
      source: anything,
      deprecatedSource: anything,
      eventTime: time,
      firstTimestamp: time,
      count: anything,
    },
    { requiredKeys: ['typeMeta'] },
  )
  .map(({ typeMeta: tm, ...rest }) => (Array.isArray(tm) ? { apiVersion: tm[0], kind: tm[1], ...rest } : { tm, ...rest }));
const kubeList = fc.record({
  apiVersion: fc.constantFrom('v1', 'karpenter.sh/v1'),
  kind: fc.constantFrom('List', 'PodList', 'NodeClaimList', 'SecretList', 'Nonsense'),
  items: maybe(fc.array(maybe(kubeObject), { maxLength: 4 })),
});
const ec2Instance = fc.record({
  InstanceId: maybe(fc.string()),
  State: maybe(fc.record({ Name: maybe(fc.string()) })),
  Tags: anything,
  Placement: anything,
});
const reservation = fc.record({ Instances: maybe(fc.array(maybe(ec2Instance))) });
const awsOutput = fc.record(
  {
    Reservations: maybe(fc.array(maybe(reservation))),
    cluster: maybe(fc.record({ name: maybe(fc.string()), accessConfig: anything, certificateAuthority: anything })),
    fargateProfile: maybe(fc.record({ fargateProfileName: maybe(fc.string()), selectors: anything })),
    fargateProfileNames: anything,
    accessEntries: anything,
    accessEntry: maybe(fc.record({ principalArn: maybe(fc.string()), kubernetesGroups: anything })),
    LaunchTemplates: maybe(
      fc.array(
        maybe(fc.record({ LaunchTemplateId: maybe(fc.string()), LaunchTemplateName: maybe(fc.string()), Tags: anything })),
      ),
    ),
    InstanceProfiles: maybe(fc.array(anything)),
    InstanceProfile: anything,
  },
  { requiredKeys: [] },
);
const document = fc.oneof(anything, kubeObject, kubeList, awsOutput);

const errorLines = fc.constantFrom(
  'An error occurred (ResourceNotFoundException) when calling the DescribeCluster operation: No cluster found for name: acme-prod.',
  'An error occurred (AccessDenied) when calling the constructor operation: x',
  'Error from server (Forbidden): pods is forbidden: User "x" cannot list resource "__proto__"',
  'No resources found in default namespace.',
  '2025-12-28T20:35:39.951Z\tERROR\tcontroller\tReconciler error\t{"error": 1}',
  '[pod/karpenter-abc/controller] {"level":"ERROR","ts":"x"}',
  '{"level":{"a":1},"ts":1e308,"msg":null}',
);
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.array(fc.oneof(errorLines, fc.string()), { maxLength: 5 }).map((l) => l.join('\n')),
);

const content = fc.oneof(
  document.map((d) => JSON.stringify(d, null, 2)),
  fc.array(document, { minLength: 1, maxLength: 3 }).map((docs) => docs.map((d) => stringify(d)).join('---\n')),
  text,
);
const fileName = fc.constantFrom('x.json', 'pods.yaml', 'nodeclaims.yml', 'karpenter.log', 'capture', 'events');
const files = fc.array(fc.tuple(fileName, content), { minLength: 1, maxLength: 3 });
const clusterOption = fc.option(fc.constantFrom('acme-prod', 'demo', ''), { nil: undefined });

/** The contract: a result, or one of the two errors the CLI turns into exit code 2 with one line. */
function assertOutcome(outcome: LoadResult | unknown): void {
  if (outcome instanceof NothingReadableError) {
    for (const file of outcome.files) expect(file).not.toMatch(/[\n\r]/);
    return;
  }
  if (outcome instanceof InputError || outcome instanceof UsageError) {
    expect(outcome.message).not.toMatch(/[\n\r]/);
    // The loader's last-resort wrapper for unexpected exceptions: reaching it means a reader bug.
    expect(outcome.message).not.toContain('could not be read (');
    return;
  }
  const result = outcome as LoadResult;
  expect(result.snapshot).toBeDefined();
  for (const source of result.snapshot.captured) expect(SOURCE_NAMES).toContain(source);
  // Serialisable (no cycles from YAML aliases): the simulator and reports rely on it.
  expect(() => JSON.stringify({ ...result.snapshot, captured: [...result.snapshot.captured] })).not.toThrow();
}

function fromFiles(entries: readonly (readonly [string, string])[], clusterName?: string): unknown {
  try {
    return snapshotFromFiles(
      entries.map(([name, text], i) => ({ path: `capture/${i}/${name}`, text })),
      clusterName === undefined ? {} : { clusterName },
    );
  } catch (error) {
    return error;
  }
}

describe('loading arbitrary input', () => {
  it('snapshotFromFiles either returns a snapshot or throws InputError/UsageError, for any file', () => {
    fc.assert(
      fc.property(fileName, content, clusterOption, (name, text, clusterName) => {
        // Act
        const outcome = fromFiles([[name, text]], clusterName);

        // Assess
        assertOutcome(outcome);
      }),
      { numRuns: 250 },
    );
  });

  it('survives near-valid kubectl lists and AWS CLI outputs, whose readers go deepest', () => {
    const nearValid = fc.oneof(
      fc.array(kubeObject, { maxLength: 6 }).map((items) => ({ apiVersion: 'v1', kind: 'List', items })),
      awsOutput,
    );
    fc.assert(
      fc.property(nearValid, fc.boolean(), (document, asYaml) => {
        // Act
        const outcome = fromFiles([[asYaml ? 'x.yaml' : 'x.json', asYaml ? stringify(document) : JSON.stringify(document)]]);

        // Assess
        assertOutcome(outcome);
      }),
      { numRuns: 250 },
    );
  });

  it('survives any bytes: gzip of anything (whole or cut short), UTF-16, random binary', () => {
    const bytes = fc.oneof(
      content.map((text) => new Uint8Array(gzipSync(text))),
      fc.tuple(content, fc.nat()).map(([text, cut]) => {
        const packed = gzipSync(text);
        return new Uint8Array(packed.subarray(0, cut % (packed.length + 1)));
      }),
      content.map((text) => new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))),
      fc.uint8Array({ maxLength: 300 }),
    );
    fc.assert(
      fc.property(fc.constantFrom('x.json.gz', 'karpenter.log.gz', 'capture.tgz', 'pods.yaml', 'x'), bytes, (name, data) => {
        // Act
        let outcome: unknown;
        try {
          outcome = snapshotFromFiles([{ path: `capture/${name}`, bytes: data }]);
        } catch (error) {
          outcome = error;
        }

        // Assess
        assertOutcome(outcome);
      }),
      { numRuns: 250 },
    );
  });

  it('loadSnapshot on files written to disk resolves or rejects with InputError/UsageError, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(files, async (entries) => {
        // Prepare
        const dir = await captureDir(Object.fromEntries(entries.map(([name, text], i) => [`${i}/${name}`, text])));

        // Act
        const outcome = await loadSnapshot([dir]).catch((error: unknown) => error);

        // Assess
        assertOutcome(outcome);
        await removeCaptureDirs();
      }),
      { numRuns: 60 },
    );
  });
});
