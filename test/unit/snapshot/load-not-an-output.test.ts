import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.ts';
import { loadSnapshot } from '../../../src/snapshot/load.ts';
import { captureDir, removeCaptureDirs } from './capture-dir.ts';

afterEach(removeCaptureDirs);

const GET_TABLE = `NAME                         READY   STATUS    RESTARTS   AGE
karpenter-5697769d6c-7lglp   0/1     Pending   0          42m
karpenter-5697769d6c-qx9zv   0/1     Pending   0          42m
`;

const GET_ALL_NAMESPACES_TABLE = `NAMESPACE     NAME                         READY   STATUS    RESTARTS   AGE
karpenter     karpenter-5697769d6c-7lglp   0/1     Pending   0          42m
kube-system   coredns-6b9575c64c-2xk8d     1/1     Running   0          3d
`;

const GET_NODECLAIMS_TABLE = `NAME            TYPE         CAPACITY    ZONE         NODE   READY     AGE
default-kb85v   t3a.xlarge   on-demand   us-east-1a          Unknown   14m
`;

const GET_EVENTS_TABLE = `LAST SEEN   TYPE      REASON             OBJECT                           MESSAGE
2m          Warning   FailedScheduling   pod/karpenter-5697769d6c-7lglp   no nodes available to schedule pods
`;

const DESCRIBE_NODECLAIM = `Name:         default-kb85v
Namespace:    
Labels:       karpenter.k8s.aws/instance-category=t
              karpenter.sh/nodepool=default
Annotations:  karpenter.sh/nodepool-hash: 6821555240594823858
API Version:  karpenter.sh/v1
Kind:         NodeClaim
Metadata:
  Creation Timestamp:  2025-12-28T20:21:00Z
Status:
  Conditions:
    Last Transition Time:  2025-12-28T20:21:04Z
    Status:                True
    Type:                  Launched
Events:
  Type    Reason    Age   From       Message
  ----    ------    ----  ----       -------
  Normal  Launched  14m   karpenter  Status condition transitioned, Type: Launched, Status: Unknown -> True
`;

const DESCRIBE_POD = `Name:             karpenter-5697769d6c-7lglp
Namespace:        karpenter
Priority:         2000000000
Priority Class Name:  system-cluster-critical
Node:             <none>
Labels:           app.kubernetes.io/name=karpenter
Status:           Pending
Events:
  Type     Reason            Age                From               Message
  ----     ------            ----               ----               -------
  Warning  FailedScheduling  2m (x9 over 42m)   default-scheduler  no nodes available to schedule pods
`;

const AWS_TEXT = `RESERVATIONS\t069057294951\tr-0f3a9c2b7d1e4a5b6
INSTANCES\t0\tx86_64\tami-071a9f2683c2da4bd\ti-01d1ff6c07a0e70f9\tt3a.xlarge\t2025-12-28T20:21:04+00:00
STATE\t16\trunning
`;

const AWS_TABLE = `-------------------------------------------------------------
|                     DescribeInstances                     |
+-----------------------------------------------------------+
||                      Reservations                       ||
|+-------------------+-------------------------------------+|
||  OwnerId          |  069057294951                       ||
`;

/**
 * What AWS CLI v1 (1.45) and kubectl 1.32 print with no configuration (HOME empty): run here, not
 * written from memory. kubectl prints client-go's log line once per discovery attempt before its
 * error: nine times for `kubectl get pods,deploy,rs,nodes,events -A -o json`.
 */
const KUBECTL_CLIENT_GO_ERROR =
  'E1129 00:30:52.083268   31700 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group list: Get \\"http://localhost:8080/api?timeout=32s\\": dial tcp 127.0.0.1:8080: connect: connection refused"\n';

const GET_TABLE_MESSAGE = '`kubectl get` table output: capture it with `kubectl get ... -o json` (or -o yaml)';
const DESCRIBE_MESSAGE = '`kubectl describe` output: capture it with `kubectl get ... -o yaml`';
const AGAIN = 'capture it again once the command works';

describe('loadSnapshot: files that are no output, and what to capture instead', () => {
  it.each([
    ['pods.txt', GET_TABLE, GET_TABLE_MESSAGE],
    ['pods-all.txt', GET_ALL_NAMESPACES_TABLE, GET_TABLE_MESSAGE],
    ['nodeclaims.txt', GET_NODECLAIMS_TABLE, GET_TABLE_MESSAGE],
    ['events.txt', GET_EVENTS_TABLE, GET_TABLE_MESSAGE],
    ['nodeclaim.txt', DESCRIBE_NODECLAIM, DESCRIBE_MESSAGE],
    ['pod.txt', DESCRIBE_POD, DESCRIBE_MESSAGE],
    [
      'names.txt',
      'pod/karpenter-5697769d6c-7lglp\npod/karpenter-5697769d6c-qx9zv\n',
      'only names (`kubectl get -o name`): capture it with `kubectl get ... -o json` (or -o yaml)',
    ],
    ['instances.txt', AWS_TEXT, 'AWS CLI text output: run the command again with --output json'],
    ['instances-table.txt', AWS_TABLE, 'AWS CLI table output: run the command again with --output json'],
    [
      'nodeclaims.json',
      'Error from server (NotFound): nodeclaims.karpenter.sh "default-kb85v" not found\n',
      `holds an error instead of an output (Error from server (NotFound): nodeclaims.karpenter.sh "default-kb85v" not found): ${AGAIN}`,
    ],
    [
      'pods.json',
      'error: You must be logged in to the server (Unauthorized)\n',
      `holds an error instead of an output (error: You must be logged in to the server (Unauthorized)): ${AGAIN}`,
    ],
    [
      'pods.yaml',
      'E0108 10:00:00.123456   12345 memcache.go:265] couldn\'t get current server API group list: Get "https://0F1E2D3C.gr7.us-east-1.eks.amazonaws.com/api?timeout=32s": dial tcp 10.0.0.1:443: i/o timeout\nUnable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout\n',
      `holds an error instead of an output (Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout): ${AGAIN}`,
    ],
    [
      'nodes.json',
      'The connection to the server localhost:8080 was refused - did you specify the right host or port?\n',
      `holds an error instead of an output (The connection to the server localhost:8080 was refused - did you specify the right host or port?): ${AGAIN}`,
    ],
    [
      'instances.json',
      '\nUnable to locate credentials. You can configure credentials by running "aws configure".\n',
      `holds an error instead of an output (Unable to locate credentials. You can configure credentials by running "aws configure".): ${AGAIN}`,
    ],
    [
      'instances.json',
      'You must specify a region. You can also configure your region by running "aws configure".\n',
      `holds an error instead of an output (You must specify a region. You can also configure your region by running "aws configure".): ${AGAIN}`,
    ],
    [
      'cluster.json',
      'The config profile (prod) could not be found\n',
      `holds an error instead of an output (The config profile (prod) could not be found): ${AGAIN}`,
    ],
    [
      'workloads.json',
      `${KUBECTL_CLIENT_GO_ERROR.repeat(9)}The connection to the server localhost:8080 was refused - did you specify the right host or port?\n`,
      `holds an error instead of an output (The connection to the server localhost:8080 was refused - did you specify the right host or port?): ${AGAIN}`,
    ],
    [
      'nodeclaims-from-github.json',
      '<!DOCTYPE html>\n<html lang="en">\n<head><title>nodeclaims.json at main · acme/infra</title></head>\n<body>{"apiVersion": "v1"}</body>\n</html>\n',
      'an HTML page, not a kubectl or aws CLI output (saved from a browser? save the raw file instead)',
    ],
    [
      'karpenter.txt',
      '{"level":"ERROR","time":"2025-12-28T20:21:04.951Z","logger":"controller","message":"Reconciler error","error":"AccessDenied"}\n{"level":"INFO","time":"2025-12-28T20:21:05.000Z","logger":"controller","message":"found provisionable pod(s)"}\n',
      'looks like controller logs (controller logs need a .log suffix: kubectl logs ... > karpenter.log)',
    ],
    [
      'karpenter-logs',
      '[pod/karpenter-5697769d6c-7lglp/controller] {"level":"ERROR","time":"2025-12-28T20:21:04.951Z","message":"Reconciler error"}\n',
      'looks like controller logs (controller logs need a .log suffix: kubectl logs ... > karpenter.log)',
    ],
  ])('%s that is no output → one line saying what it is', async (name, content, problem) => {
    // Prepare
    const dir = await captureDir({ [name]: content });

    // Act
    const error = await loadSnapshot([dir]).catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(`${join(dir, name)}: ${problem}`);
  });

  it('reads a saved error as a gap in the tool’s own words, after the command that failed', async () => {
    // Prepare
    const dir = await captureDir({
      'nodes.json': { apiVersion: 'v1', kind: 'List', items: [] },
      'instances.json': 'You must specify a region. You can also configure your region by running "aws configure".\n',
      'instance-profiles.json': 'Unable to locate credentials. You can configure credentials by running "aws configure".\n',
      'fargate-profile-karpenter.json': 'The config profile (prod) could not be found\n',
      'nodeclaims.json': `${KUBECTL_CLIENT_GO_ERROR.repeat(7)}The connection to the server localhost:8080 was refused - did you specify the right host or port?\n`,
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.gaps).toEqual([
      {
        source: 'nodeclaims',
        error:
          'kubectl get nodeclaims failed: The connection to the server localhost:8080 was refused - did you specify the right host or port?',
      },
      {
        source: 'instances',
        error:
          'aws ec2 describe-instances failed: You must specify a region. You can also configure your region by running "aws configure".',
      },
      {
        source: 'fargateprofiles',
        error: 'aws eks describe-fargate-profile failed: The config profile (prod) could not be found',
      },
      {
        source: 'instanceprofiles',
        error:
          'aws iam list-instance-profiles failed: Unable to locate credentials. You can configure credentials by running "aws configure".',
      },
    ]);
  });

  it('still reads kubectl and AWS CLI errors naming what could not be listed as gaps', async () => {
    // Prepare
    const dir = await captureDir({
      'nodeclaims.txt': 'error: the server doesn\'t have a resource type "nodeclaims"\n',
      'instances.json':
        '\nAn error occurred (ExpiredTokenException) when calling the DescribeInstances operation: The security token included in the request is expired\n',
    });

    // Act
    const { snapshot } = await loadSnapshot([dir]);

    // Assess
    expect(snapshot.gaps.map((g) => g.source)).toEqual(['nodeclaims', 'instances']);
  });
});
