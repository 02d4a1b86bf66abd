import { describe, expect, it } from 'vitest';
import { InMemoryStateStore } from '../../../../src/adapters/memory/state.ts';
import type { ClusterStatus } from '../../../../src/ports/state.ts';
import { saveControllerStatus } from '../../../../src/usecases/scan-steps/controller-status.ts';
import { snapshotOf } from '../../../factories/aws.ts';
import { karpenterDeployment } from '../../../factories/kube.ts';

const NOW = new Date('2026-01-01T02:00:05Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function saved(overrides: Partial<ClusterStatus> = {}): ClusterStatus {
  return {
    cluster: 'shop-prod',
    observedAt: minutesAgo(1),
    controller: 'available',
    readyReplicas: 2,
    desiredReplicas: 2,
    ...overrides,
  };
}

async function scanSees(readyReplicas: number, lastSaved: ClusterStatus | undefined) {
  const state = new InMemoryStateStore();
  const snapshot = snapshotOf({ deployments: [karpenterDeployment({ replicas: 2, readyReplicas })] }, 'shop-prod');
  const status = await saveControllerStatus(state, snapshot, NOW, lastSaved);
  return { status, stored: (await state.clusterStatuses(['shop-prod'])).get('shop-prod') };
}

describe('saveControllerStatus', () => {
  it('does not write a status equal to the one last saved a minute ago, and answers with that one', async () => {
    const { status, stored } = await scanSees(2, saved());

    expect(stored).toBeUndefined();
    expect(status).toEqual(saved());
  });

  it('writes a status that changed', async () => {
    const { stored } = await scanSees(1, saved());

    expect(stored).toMatchObject({ readyReplicas: 1, observedAt: '2026-01-01T02:00:05Z' });
  });

  it('writes an unavailable controller every time: its age decides whether interruptions are alerted', async () => {
    const { stored } = await scanSees(0, saved({ controller: 'unavailable', readyReplicas: 0 }));

    expect(stored).toMatchObject({ controller: 'unavailable', observedAt: '2026-01-01T02:00:05Z' });
  });

  it('writes an unchanged status again once the last one is an hour old, and whenever none is known', async () => {
    const anHourOld = await scanSees(2, saved({ observedAt: minutesAgo(60) }));
    const unknown = await scanSees(2, undefined);

    expect(anHourOld.stored).toMatchObject({ observedAt: '2026-01-01T02:00:05Z' });
    expect(unknown.stored).toMatchObject({ controller: 'available', readyReplicas: 2 });
  });
});
