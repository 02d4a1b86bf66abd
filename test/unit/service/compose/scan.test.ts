import { describe, expect, it } from 'vitest';
import { readDispatchConfig, readLoggingConfig, readScanConfig } from '../../../../src/config.ts';
import type { ClusterInfo } from '../../../../src/domain/aws.ts';
import { KubeUnreachableError } from '../../../../src/ports/errors.ts';
import { composeScanDispatch } from '../../../../src/service/compose/scan-dispatch.ts';
import { kubeConnections, type ClosableKubernetesPort } from '../../../../src/service/compose/kube-connections.ts';
import { composeScan } from '../../../../src/service/compose/scan.ts';
import { cluster } from '../../../factories/aws.ts';

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');

function opener() {
  const opened: { cluster: ClusterInfo; closed: boolean }[] = [];
  const open = (c: ClusterInfo): ClosableKubernetesPort => {
    const entry = { cluster: c, closed: false };
    opened.push(entry);
    return { close: () => void (entry.closed = true) } as unknown as ClosableKubernetesPort;
  };
  return { opened, open };
}

describe('kubeConnections', () => {
  it('keeps one connection per cluster across scans', async () => {
    const { opened, open } = opener();
    const connections = kubeConnections(open);
    const shop = cluster({ name: 'shop-prod', certificateAuthority: CA });

    const first = await connections.connect('shop-prod', shop);
    const second = await connections.connect('shop-prod', { ...shop });
    await connections.connect('ml-prod', cluster({ name: 'ml-prod', certificateAuthority: CA }));

    expect(second).toBe(first);
    expect(opened.map((o) => o.cluster.name)).toEqual(['shop-prod', 'ml-prod']);
  });

  it('reconnects, closing the old connection, when the endpoint or the CA changed', async () => {
    const { opened, open } = opener();
    const connections = kubeConnections(open);
    const shop = cluster({ name: 'shop-prod', certificateAuthority: CA });

    await connections.connect('shop-prod', shop);
    await connections.connect('shop-prod', { ...shop, endpoint: 'https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com' });
    await connections.connect('shop-prod', {
      ...shop,
      endpoint: 'https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
      certificateAuthority: 'cm90YXRlZA==',
    });

    expect(opened.map((o) => o.closed)).toEqual([true, true, false]);
  });

  it('without an endpoint (DescribeCluster failed) the Kubernetes API is unreachable, naming the cluster', async () => {
    const connections = kubeConnections(opener().open);

    await expect(connections.connect('shop-prod', undefined)).rejects.toThrow(KubeUnreachableError);
    await expect(connections.connect('shop-prod', { name: 'shop-prod' })).rejects.toThrow(/no endpoint for cluster shop-prod/);
  });
});

describe('composition roots', () => {
  it('build their dependencies from validated config without calling AWS', () => {
    const scan = composeScan(
      readScanConfig({
        AWS_REGION: 'eu-west-1',
        STATE_TABLE: 'karpenter-sentinel-state',
        ALERT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:karpenter-sentinel-alerts',
      }),
      readLoggingConfig({}),
    );
    const dispatch = composeScanDispatch(
      readDispatchConfig({ AWS_REGION: 'eu-west-1', SCAN_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/scan' }),
      readLoggingConfig({}),
    );

    expect(scan.settings.actions.modes).toEqual({ ROLLOUT_RESTART: 'apply', TERMINATE_INSTANCE: 'dry-run' });
    expect(dispatch.settings).toEqual({
      clusters: undefined,
      optInTag: { key: 'karpenter-sentinel/enabled', value: 'true' },
      region: 'eu-west-1',
    });
  });
});
