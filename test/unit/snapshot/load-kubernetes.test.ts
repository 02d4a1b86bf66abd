import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { InputError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { ec2NodeClass, nodeClaim, nodePool, unregisteredConditions } from '../../factories/karpenter.ts';
import { awsAuth, crd, karpenterDeployment, karpenterPod, node, pod, service } from '../../factories/kube.ts';
import { captureDir, EMPTY_LIST_JSON, EMPTY_LIST_YAML, kubeList, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const AWS_AUTH_MAP_ROLES = `- rolearn: arn:aws:iam::069057294951:role/aws-2026-eks-node-role
  groups:
  - system:bootstrappers
  - system:nodes
  username: system:node:{{EC2PrivateDNSName}}
`;

describe('loadSnapshot: Kubernetes objects', () => {
  it('reads every kind it uses from `kubectl get -o json` lists and marks each source captured', async () => {
    // Prepare
    const dir = await captureDir({
      'pods.json': kubeList([karpenterPod({ name: 'karpenter-5697769d6c-7lglp' }), pod({ name: 'inflate-5cf78d58f6-9snnr' })]),
      'deployments.json': kubeList([karpenterDeployment()]),
      'replicasets.json': kubeList([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: 'karpenter-5697769d6c', namespace: 'karpenter' },
          spec: { replicas: 2 },
        },
      ]),
      'nodes.json': kubeList([node({ name: 'ip-10-59-127-151.ec2.internal' })]),
      'aws-auth.json': awsAuth(AWS_AUTH_MAP_ROLES),
      'services.json': kubeList([service({ name: 'karpenter', namespace: 'karpenter', ports: [8000] })]),
      'crds.json': kubeList([
        crd({
          plural: 'nodeclaims',
          group: 'karpenter.sh',
          kind: 'NodeClaim',
          webhook: { name: 'karpenter', namespace: 'kube-system', port: 8443 },
        }),
      ]),
      'nodeclaims.json': kubeList([
        nodeClaim({ name: 'default-kb85v', instanceId: 'i-01d1ff6c07a0e70f9', conditions: unregisteredConditions() }),
      ]),
      'nodepools.json': kubeList([nodePool({ name: 'default' })]),
      'ec2nodeclasses.json': kubeList([ec2NodeClass({ name: 'default', role: 'aws-2026-eks-karpenter-node' })]),
    });

    // Act
    const { snapshot, notices, files } = await loadSnapshot([dir]);

    // Assess
    expect(files).toBe(10);
    expect(notices).toEqual([]);
    expect([...snapshot.captured].sort()).toEqual(
      [
        'configmaps',
        'crds',
        'deployments',
        'ec2nodeclasses',
        'nodeclaims',
        'nodepools',
        'nodes',
        'pods',
        'replicasets',
        'services',
      ].sort(),
    );
    expect(snapshot.pods.map((p) => p.metadata?.name)).toEqual(['karpenter-5697769d6c-7lglp', 'inflate-5cf78d58f6-9snnr']);
    expect(snapshot.deployments[0]?.metadata?.name).toBe('karpenter');
    expect(snapshot.replicaSets[0]?.metadata?.name).toBe('karpenter-5697769d6c');
    expect(snapshot.nodes[0]?.metadata?.name).toBe('ip-10-59-127-151.ec2.internal');
    expect(snapshot.configMaps[0]?.data?.mapRoles).toContain('aws-2026-eks-node-role');
    expect(snapshot.services[0]?.spec?.ports?.[0]?.port).toBe(8000);
    expect(snapshot.crds[0]?.spec?.conversion?.webhook?.clientConfig?.service?.port).toBe(8443);
    expect(snapshot.nodeClaims[0]?.status?.providerID).toBe('aws:///us-east-1a/i-01d1ff6c07a0e70f9');
    expect(snapshot.nodePools[0]?.metadata?.name).toBe('default');
    expect(snapshot.nodeClasses[0]?.spec?.role).toBe('aws-2026-eks-karpenter-node');
  });

  it('reads `kubectl get -o yaml` output, single objects and multi-document YAML alike', async () => {
    // Prepare
    const dir = await captureDir({
      'nodeclaims.yaml': stringify(kubeList([nodeClaim({ name: 'default-njzpq', instanceId: 'i-0aaa1111bbbb2222c' })])),
      'aws-auth.yaml': stringify(awsAuth(AWS_AUTH_MAP_ROLES)),
      'karpenter-nodepool-default.yaml': `${stringify(nodePool({ name: 'default' }))}---\n${stringify(ec2NodeClass({ name: 'default' }))}`,
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodeClaims.map((n) => n.metadata?.name)).toEqual(['default-njzpq']);
    expect(snapshot.configMaps[0]?.metadata).toEqual({ name: 'aws-auth', namespace: 'kube-system' });
    expect(snapshot.configMaps[0]?.data?.mapRoles).toBe(AWS_AUTH_MAP_ROLES);
    expect(snapshot.nodePools.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(snapshot.nodeClasses.map((n) => n.metadata?.name)).toEqual(['default']);
    expect(snapshot.captured).toEqual(new Set(['nodeclaims', 'configmaps', 'nodepools', 'ec2nodeclasses']));
  });

  it('splits a mixed `kubectl get pods,deploy,nodes,events -A -o json` List by kind', async () => {
    // Prepare
    const dir = await captureDir({
      'everything.json': kubeList([
        karpenterPod({ name: 'karpenter-5697769d6c-7lglp' }),
        karpenterDeployment(),
        node({ name: 'fargate-ip-10-0-1-100.us-west-2.compute.internal' }),
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'karpenter-5697769d6c-7lglp.1814f0a0e1b2c3d4', namespace: 'karpenter' },
          involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'karpenter-5697769d6c-7lglp', namespace: 'karpenter' },
          reason: 'FailedScheduling',
          message: 'no nodes available to schedule pods',
          type: 'Warning',
          firstTimestamp: '2025-01-08T10:00:00Z',
          lastTimestamp: '2025-01-08T10:20:00Z',
          count: 9,
          source: { component: 'default-scheduler' },
        },
      ]),
    });

    // Act
    const { snapshot } = await loadSnapshot([join(dir, 'everything.json')]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['pods', 'deployments', 'nodes', 'events']));
    expect(snapshot.pods).toHaveLength(1);
    expect(snapshot.deployments).toHaveLength(1);
    expect(snapshot.nodes).toHaveLength(1);
    expect(snapshot.events).toEqual([
      {
        regarding: { kind: 'Pod', namespace: 'karpenter', name: 'karpenter-5697769d6c-7lglp' },
        namespace: 'karpenter',
        reason: 'FailedScheduling',
        message: 'no nodes available to schedule pods',
        type: 'Warning',
        firstTime: '2025-01-08T10:00:00Z',
        lastTime: '2025-01-08T10:20:00Z',
        count: 9,
        source: 'default-scheduler',
      },
    ]);
  });

  it('reads typed API lists (PodList) whose items carry no kind', async () => {
    // Prepare
    const bare = pod({ name: 'inflate-5cf78d58f6-dr99n' });
    delete bare.kind;
    delete bare.apiVersion;
    const dir = await captureDir({
      'api.json': { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [bare] },
      'empty.json': { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaimList', items: [] },
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods[0]).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'inflate-5cf78d58f6-dr99n' } });
    expect(snapshot.captured).toEqual(new Set(['pods', 'nodeclaims']));
    expect(snapshot.nodeClaims).toEqual([]);
  });

  it('keeps Karpenter v1beta1 objects', async () => {
    // Prepare
    const v1beta1 = {
      apiVersion: 'karpenter.sh/v1beta1',
      kind: 'NodeClaim',
      metadata: { name: 'default-x2kq8' },
      spec: { nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' } },
    };
    const dir = await captureDir({ 'old.yaml': stringify(v1beta1) });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodeClaims).toEqual([v1beta1]);
    expect(notices).toEqual([]);
  });
});

describe('loadSnapshot: Events of both APIs', () => {
  it('normalises core/v1 Events, including new-style ones with eventTime and series', async () => {
    // Prepare
    const legacy = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'default-kb85v.1814f0a0', namespace: 'default' },
      involvedObject: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'default-kb85v', uid: 'uid-1' },
      reason: 'FailedLaunch',
      message: 'creating instance, insufficient capacity',
      type: 'Warning',
      firstTimestamp: '2025-12-28T20:21:00Z',
      lastTimestamp: '2025-12-28T20:33:00Z',
      count: 4,
      source: { component: 'karpenter' },
      eventTime: null,
    };
    const seriesEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'karpenter-5697769d6c-7lglp.1814f0a1', namespace: 'karpenter' },
      involvedObject: { kind: 'Pod', name: 'karpenter-5697769d6c-7lglp', namespace: 'karpenter' },
      reason: 'FailedScheduling',
      message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
      type: 'Warning',
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: '2025-12-28T20:21:00.123456Z',
      series: { count: 12, lastObservedTime: '2025-12-28T20:40:00.654321Z' },
      reportingComponent: 'default-scheduler',
      source: {},
    };
    const dir = await captureDir({ 'events.json': kubeList([legacy, seriesEvent]) });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.events).toEqual([
      {
        regarding: { kind: 'NodeClaim', name: 'default-kb85v', uid: 'uid-1' },
        namespace: 'default',
        reason: 'FailedLaunch',
        message: 'creating instance, insufficient capacity',
        type: 'Warning',
        firstTime: '2025-12-28T20:21:00Z',
        lastTime: '2025-12-28T20:33:00Z',
        count: 4,
        source: 'karpenter',
      },
      {
        regarding: { kind: 'Pod', name: 'karpenter-5697769d6c-7lglp', namespace: 'karpenter' },
        namespace: 'karpenter',
        reason: 'FailedScheduling',
        message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
        type: 'Warning',
        firstTime: '2025-12-28T20:21:00.123456Z',
        lastTime: '2025-12-28T20:40:00.654321Z',
        count: 12,
        source: 'default-scheduler',
      },
    ]);
  });

  it('normalises events.k8s.io/v1 Events (regarding, note, deprecated* fields, reportingController)', async () => {
    // Prepare
    const events = `apiVersion: v1
items:
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata:
    name: default-kb85v.1814f0a0
    namespace: default
  regarding:
    apiVersion: karpenter.sh/v1
    kind: NodeClaim
    name: default-kb85v
  reason: FailedLaunch
  note: 'launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted'
  type: Warning
  reportingController: karpenter
  reportingInstance: ""
  deprecatedFirstTimestamp: "2025-12-28T20:21:00Z"
  deprecatedLastTimestamp: "2025-12-28T20:33:00Z"
  deprecatedCount: 3
  deprecatedSource:
    component: karpenter
  eventTime: null
- apiVersion: events.k8s.io/v1
  kind: Event
  metadata:
    name: inflate-5cf78d58f6-9snnr.1814f0b0
    namespace: default
  regarding:
    kind: Pod
    name: inflate-5cf78d58f6-9snnr
    namespace: default
  reason: FailedScheduling
  note: 'no nodepools found'
  type: Warning
  reportingController: default-scheduler
  eventTime: "2025-12-28T20:21:00.000001Z"
  series:
    count: 7
    lastObservedTime: "2025-12-28T20:31:00.000001Z"
kind: List
metadata:
  resourceVersion: ""
`;
    const dir = await captureDir({ 'events.yaml': events });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured).toEqual(new Set(['events']));
    expect(snapshot.events).toEqual([
      {
        regarding: { kind: 'NodeClaim', name: 'default-kb85v' },
        namespace: 'default',
        reason: 'FailedLaunch',
        message: 'launching nodeclaim, creating instance, with fleet error(s), AuthFailure.ServiceLinkedRoleCreationNotPermitted',
        type: 'Warning',
        firstTime: '2025-12-28T20:21:00Z',
        lastTime: '2025-12-28T20:33:00Z',
        count: 3,
        source: 'karpenter',
      },
      {
        regarding: { kind: 'Pod', name: 'inflate-5cf78d58f6-9snnr', namespace: 'default' },
        namespace: 'default',
        reason: 'FailedScheduling',
        message: 'no nodepools found',
        type: 'Warning',
        firstTime: '2025-12-28T20:21:00.000001Z',
        lastTime: '2025-12-28T20:31:00.000001Z',
        count: 7,
        source: 'default-scheduler',
      },
    ]);
  });

  it('counts an Event seen through both APIs once', async () => {
    // Prepare
    const metadata = { name: 'default-kb85v.1814f0a0', namespace: 'default' };
    const dir = await captureDir({
      'a-events.json': kubeList([
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata,
          involvedObject: { kind: 'NodeClaim', name: 'default-kb85v' },
          reason: 'FailedLaunch',
        },
      ]),
      'b-events.json': kubeList([
        {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata,
          regarding: { kind: 'NodeClaim', name: 'default-kb85v' },
          reason: 'FailedLaunch',
        },
      ]),
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.events).toHaveLength(1);
  });
});

describe('loadSnapshot: empty lists', () => {
  it.each([
    ['nodeclaims.json', EMPTY_LIST_JSON, 'nodeclaims'],
    ['pods.yaml', EMPTY_LIST_YAML, 'pods'],
    ['deployments.json', EMPTY_LIST_JSON, 'deployments'],
    ['ec2nodeclasses.yml', EMPTY_LIST_YAML, 'ec2nodeclasses'],
    ['events.json', EMPTY_LIST_JSON, 'events'],
    ['nodepools.json', EMPTY_LIST_JSON, 'nodepools'],
    ['nodes.json', EMPTY_LIST_JSON, 'nodes'],
    ['services.json', EMPTY_LIST_JSON, 'services'],
    ['configmaps.json', EMPTY_LIST_JSON, 'configmaps'],
    ['replicasets.json', EMPTY_LIST_JSON, 'replicasets'],
    ['customresourcedefinitions.json', EMPTY_LIST_JSON, 'crds'],
    ['crds.json', EMPTY_LIST_JSON, 'crds'],
    ['nodeclaims.karpenter.sh.json', EMPTY_LIST_JSON, 'nodeclaims'],
    ['nodeclaims.txt', 'No resources found\n', 'nodeclaims'],
  ])('%s holding an empty list means "captured, none exist"', async (name, content, source) => {
    // Prepare
    const dir = await captureDir({ [name]: content });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect([...snapshot.captured]).toEqual([source]);
    expect(snapshot.nodeClaims).toEqual([]);
  });

  it('rejects an empty list in a file not named after a resource, saying how to name it', async () => {
    // Prepare
    const dir = await captureDir({ 'capture-1.json': EMPTY_LIST_JSON });

    // Act
    const loading = loadSnapshot([dir]);

    // Assess
    await expect(loading).rejects.toThrow(InputError);
    await expect(loading).rejects.toThrow(
      /capture-1\.json: an empty list names no kind of resource: name the file after the resource it lists \(nodeclaims\.json/,
    );
  });
});

describe('loadSnapshot: kinds it does not use', () => {
  it('skips other kinds with a notice, never silently', async () => {
    // Prepare
    const dir = await captureDir({
      'all.json': kubeList([
        karpenterPod({ name: 'karpenter-5697769d6c-7lglp' }),
        { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'aws-node', namespace: 'kube-system' } },
        { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'kube-proxy', namespace: 'kube-system' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'karpenter' } },
      ]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.pods).toHaveLength(1);
    expect(notices).toEqual([
      `${join(dir, 'all.json')}: skipped 3 objects of kinds karpenter-sentinel does not use (2 DaemonSet (apps), 1 Namespace)`,
    ]);
  });

  it('accepts a file holding only kinds it does not use, with a notice', async () => {
    // Prepare
    const dir = await captureDir({
      'job.yaml': stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'default' } }),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.captured.size).toBe(0);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('1 Job (batch)');
  });

  it('treats a same-named kind of another API group as unused (not a Karpenter NodePool)', async () => {
    // Prepare
    const dir = await captureDir({
      'np.json': { apiVersion: 'example.com/v1', kind: 'NodePool', metadata: { name: 'default' } },
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodePools).toEqual([]);
    expect(snapshot.captured.has('nodepools')).toBe(false);
    expect(notices[0]).toContain('NodePool (example.com)');
  });

  it('never keeps Secrets, and says so', async () => {
    // Prepare
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'slack-webhook', namespace: 'sentinel' },
      data: { url: 'aHR0cHM6Ly9ob29rcy5zbGFjay5jb20vc2VjcmV0' },
    };
    const dir = await captureDir({ 'ns.json': kubeList([secret, pod({ name: 'inflate-5cf78d58f6-9snnr' })]) });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(notices).toEqual([`${join(dir, 'ns.json')}: skipped 1 Secret: Secrets are never read`]);
    expect(JSON.stringify({ ...snapshot, captured: [...snapshot.captured] })).not.toContain(
      'aHR0cHM6Ly9ob29rcy5zbGFjay5jb20vc2VjcmV0',
    );
    expect(snapshot.configMaps).toEqual([]);
    expect(snapshot.captured).toEqual(new Set(['pods']));
  });
});

describe('loadSnapshot: malformed Kubernetes objects', () => {
  it.each([[kubeList([{ metadata: { name: 'p' } }]), 'items[0] has no kind and apiVersion']])(
    'rejects %j',
    async (object, problem) => {
      // Prepare
      const dir = await captureDir({ 'bad.json': object });

      // Act
      const loading = loadSnapshot([join(dir, 'bad.json')]);

      // Assess
      await expect(loading).rejects.toThrow(InputError);
      await expect(loading).rejects.toThrow(`${join(dir, 'bad.json')}: ${problem}`);
    },
  );
});

describe('loadSnapshot: objects with a field of the wrong type', () => {
  it.each([
    [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 3 } } },
      'Pod ns/p: metadata.labels.app is a number, expected a string',
    ],
    [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { conditions: 'Ready' } },
      'Node n: status.conditions is a string, expected a list',
    ],
    [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { taints: true } },
      'Node n: spec.taints is true, expected a list',
    ],
    [
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default' },
        spec: { template: { spec: { taints: true } } },
      },
      'NodePool default: spec.template.spec.taints is true, expected a list',
    ],
    [
      { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'n' }, spec: { amiSelectorTerms: 'x' } },
      'EC2NodeClass n: spec.amiSelectorTerms is a string, expected a list',
    ],
    [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'ns' },
        spec: { containers: [{ name: 'c', env: [null] }] },
      },
      'Pod ns/p: spec.containers[0].env[0] is null, expected an object',
    ],
    [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'ns', ownerReferences: [{ kind: 'ReplicaSet', name: {} }] },
      },
      'Pod ns/p: metadata.ownerReferences[0].name is an object, expected a string',
    ],
    [
      // Found by the hostile-capture property test: a pod whose volumes are not a list stopped PODS_PENDING_PROLONGED.
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { volumes: 0 } },
      'Pod ns/p: spec.volumes is a number, expected a list',
    ],
  ])('sets %j aside, keeps the rest of its file and marks its source incomplete', async (object, problem) => {
    // Prepare
    const good = node({ name: 'ip-10-0-1-1.ec2.internal' });
    const dir = await captureDir({ 'bad.json': kubeList([object, good]) });

    // Act
    const { snapshot, notices } = await loadSnapshot([join(dir, 'bad.json')]);

    // Assess
    expect(notices).toEqual([`${join(dir, 'bad.json')}: ${problem}; object set aside`]);
    const source = ({ Pod: 'pods', Node: 'nodes', NodePool: 'nodepools', EC2NodeClass: 'ec2nodeclasses' } as const)[object.kind]!;
    expect(snapshot.gaps).toEqual([{ source, error: '1 object set aside as malformed (see notes)' }]);
    expect(snapshot.captured.has(source)).toBe(true);
    expect(snapshot.nodes.map((n) => n.metadata?.name)).toEqual(['ip-10-0-1-1.ec2.internal']);
    expect([...snapshot.pods, ...snapshot.nodePools, ...snapshot.nodeClasses]).toEqual([]);
  });

  it.each([
    [{ apiVersion: 'v1', kind: 'Pod' }, 'Pod items[0]: metadata is missing, expected an object'],
    [
      { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default' } },
      'Pod items[0]: metadata.name is missing, expected a string',
    ],
    [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: '' } }, 'Pod items[0]: metadata.name is empty, expected a name'],
    [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 7 } },
      'Pod items[0]: metadata.namespace is a number, expected a string',
    ],
    [{ apiVersion: 'v1', kind: 'Event', metadata: {} }, 'Event items[0]: metadata.name is missing, expected a string'],
  ])('sets an object that cannot be named (%j) aside, by its place in the file', async (object, problem) => {
    // Prepare
    const dir = await captureDir({ 'bad.json': kubeList([object, node({ name: 'ip-10-0-1-1.ec2.internal' })]) });

    // Act
    const { snapshot, notices } = await loadSnapshot([join(dir, 'bad.json')]);

    // Assess
    expect(notices).toEqual([`${join(dir, 'bad.json')}: ${problem}; object set aside`]);
    expect(snapshot.gaps).toEqual([
      { source: object.kind === 'Pod' ? 'pods' : 'events', error: '1 object set aside as malformed (see notes)' },
    ]);
    expect(snapshot.nodes.map((n) => n.metadata?.name)).toEqual(['ip-10-0-1-1.ec2.internal']);
  });

  it('reads a null field as absent, as the domain types declare it (kubectl prints `creationTimestamp: null`)', async () => {
    // Prepare
    const pool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default', creationTimestamp: null } };
    const dir = await captureDir({
      'nodepools.json': kubeList([{ ...pool, spec: { template: { spec: { nodeClassRef: null } } } }]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(notices).toEqual([]);
    expect(snapshot.nodePools[0]?.metadata).toEqual({ name: 'default' });
    expect(snapshot.nodePools[0]?.spec?.template?.spec).toEqual({});
  });

  it('lets a later good copy of an object replace one set aside, and says how many more were set aside past a few', async () => {
    // Prepare
    const bad = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints: true } });
    const dir = await captureDir({
      'a.json': kubeList(['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'].map(bad)),
      'b.json': kubeList([node({ name: 'n1' })]),
    });

    // Act
    const { snapshot, notices } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.nodes.map((n) => n.metadata?.name)).toEqual(['n1']);
    expect(notices).toHaveLength(6);
    expect(notices.at(-1)).toBe('nodes: 1 more object set aside as malformed');
    expect(snapshot.gaps).toEqual([{ source: 'nodes', error: '6 objects set aside as malformed (see notes)' }]);
  });
});
