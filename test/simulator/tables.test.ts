/** The cells kubectl prints for a pod, worked out as the API server's pod printer does. */
import { describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../src/domain/shape.ts';
import { humanDuration } from '../../src/simulator/tables/age.ts';
import { podCells } from '../../src/simulator/tables/pod-row.ts';
import { tableOf, wantsTable } from '../../src/simulator/tables/table.ts';

const NOW = new Date('2026-01-01T01:00:00Z');

function podWith(status: JsonRecord, extra: { metadata?: JsonRecord; spec?: JsonRecord } = {}): JsonRecord {
  return {
    metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z', ...extra.metadata },
    spec: { nodeName: 'n1', containers: [{ name: 'main' }], ...extra.spec },
    status,
  };
}

const running = { name: 'main', ready: true, restartCount: 0, state: { running: {} } };

describe('pod STATUS and READY', () => {
  it.each([
    ['Running', podWith({ phase: 'Running', containerStatuses: [running] }), '1/1'],
    ['Pending', podWith({ phase: 'Pending' }, { spec: { nodeName: undefined } }), '0/1'],
    [
      'ContainerCreating',
      podWith({ phase: 'Pending', containerStatuses: [{ name: 'main', state: { waiting: { reason: 'ContainerCreating' } } }] }),
      '0/1',
    ],
    [
      'OOMKilled',
      podWith({
        phase: 'Running',
        containerStatuses: [{ name: 'main', state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }],
      }),
      '0/1',
    ],
    [
      'ExitCode:3',
      podWith({ phase: 'Failed', containerStatuses: [{ name: 'main', state: { terminated: { exitCode: 3 } } }] }),
      '0/1',
    ],
    [
      'Init:0/1',
      podWith(
        { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }] },
        { spec: { initContainers: [{ name: 'init' }] } },
      ),
      '0/1',
    ],
    [
      'Init:CrashLoopBackOff',
      podWith(
        { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
        { spec: { initContainers: [{ name: 'init' }] } },
      ),
      '0/1',
    ],
    [
      'Terminating',
      podWith({ phase: 'Running', containerStatuses: [running] }, { metadata: { deletionTimestamp: '2026-01-01T00:59:00Z' } }),
      '1/1',
    ],
    ['Evicted', podWith({ phase: 'Failed', reason: 'Evicted' }), '0/1'],
  ])('%s', (status, pod, ready) => {
    const [, readyCell, statusCell] = podCells(pod, NOW);

    expect([readyCell, statusCell]).toEqual([ready, status]);
  });

  it('RESTARTS says when the last restart ended', () => {
    const pod = podWith({
      phase: 'Running',
      containerStatuses: [{ ...running, restartCount: 3, lastState: { terminated: { finishedAt: '2026-01-01T00:55:00Z' } } }],
    });

    expect(podCells(pod, NOW)[3]).toBe('3 (5m ago)');
  });
});

describe('ages as kubectl rounds them', () => {
  it.each([
    [59_000, '59s'],
    [150_000, '2m30s'],
    [45 * 60_000, '45m'],
    [(3 * 60 + 12) * 60_000, '3h12m'],
    [30 * 3600_000, '30h'],
    [(3 * 24 + 5) * 3600_000, '3d5h'],
    [400 * 24 * 3600_000, '400d'],
  ])('%i ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('wantsTable', () => {
  it('is true for what kubectl get sends and false for plain JSON clients', () => {
    expect(
      wantsTable(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe(true);
    expect(wantsTable('application/json, */*')).toBe(false);
    expect(wantsTable('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json')).toBe(false);
  });
});

describe('column definitions as the API server declares them (printers.go)', () => {
  const columns = (resource: 'deployments' | 'configmaps' | 'events') =>
    (tableOf(resource, [], { include: 'None', now: NOW }).columnDefinitions as JsonRecord[]).map((c) => [
      c.name,
      c.type,
      c.format,
    ]);

  it('Deployment UP-TO-DATE and AVAILABLE and ConfigMap DATA are declared strings (their cells are numbers)', () => {
    expect(columns('deployments').slice(2, 4)).toEqual([
      ['Up-to-date', 'string', ''],
      ['Available', 'string', ''],
    ]);
    expect(columns('configmaps')[1]).toEqual(['Data', 'string', '']);
  });

  it("an event's Name column has the name format; its Count cell is a number", () => {
    const event = { metadata: { name: 'e1', namespace: 'shop' }, regarding: { kind: 'Pod', name: 'p' }, reason: 'R', note: 'm' };
    const table = tableOf('events', [event], { include: 'None', now: NOW });

    expect(columns('events').at(-1)).toEqual(['Name', 'string', 'name']);
    expect((table.rows as { cells: unknown[] }[])[0]?.cells.at(-2)).toBe(1);
  });
});
