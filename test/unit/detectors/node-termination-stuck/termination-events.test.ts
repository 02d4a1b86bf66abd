import { describe, expect, it } from 'vitest';
import { eventBlocker, quoteEvent } from '../../../../src/detectors/node-termination-stuck/termination-events.ts';
import { event } from '../../../factories/kube.ts';

const NODE = 'ip-10-0-1-23.ec2.internal';
const on = (reason: string, message: string) => event({ kind: 'Node', name: NODE, reason, message, source: 'karpenter' });

describe("Karpenter's drain events, v1.0–v1.14 wording", () => {
  it.each([
    ['FailedDraining', 'Failed to drain node, evicting pod violates a PDB', { kind: 'pdb' }],
    ['FailedDraining', 'Failed to drain node, evicting pod shop/web-1 violates a PDB', { kind: 'pdb', pod: 'shop/web-1' }],
    ['FailedDraining', 'Failed to drain node, evicting pod violates a PDB (Pod=shop/web-1)', { kind: 'pdb', pod: 'shop/web-1' }],
    ['FailedDraining', 'Failed to drain node, eviction does not support multiple PDBs', { kind: 'multiple-pdbs' }],
    ['FailedDraining', 'Failed to drain node, 3 pods are waiting to be evicted', { kind: 'waiting', pods: 3 }],
    ['DisruptionBlocked', 'Cannot disrupt Node: pdb "shop/web" prevents pod evictions', { kind: 'pdb', pdb: 'shop/web' }],
    ['DisruptionBlocked', 'Pdb prevents pod evictions', { kind: 'pdb' }],
    [
      'DisruptionBlocked',
      'Cannot disrupt Node: pod "batch/report-1" has "karpenter.sh/do-not-disrupt" annotation',
      { kind: 'do-not-disrupt', pod: 'batch/report-1' },
    ],
    ['DisruptionBlocked', 'Pod has "karpenter.sh/do-not-disrupt" annotation', { kind: 'do-not-disrupt' }],
    ['DisruptionBlocked', 'Eviction does not support multiple PDBs', { kind: 'multiple-pdbs' }],
    [
      'AwaitingVolumeDetachment',
      'Awaiting deletion of bound volumeattachments (csi-3f1e9a7c, csi-0b5e1d2c)',
      { kind: 'volumes', attachments: 'csi-3f1e9a7c, csi-0b5e1d2c' },
    ],
  ])('%s: %s', (reason, message, expected) => {
    // Act / Assess
    expect(eventBlocker(on(reason, message))).toEqual(expected);
  });

  it('ignores what names no blocker', () => {
    // Act / Assess
    expect(eventBlocker(on('DisruptionBlocked', 'Node is deleting or marked for deletion'))).toBeUndefined();
    expect(
      eventBlocker(on('TerminationGracePeriodExpiring', 'All pods will be deleted by 2026-01-02T00:00:00Z')),
    ).toBeUndefined();
    expect(eventBlocker(on('FailedDraining', 'something else'))).toBeUndefined();
  });

  it('quotes an event with its count and last time', () => {
    // Prepare
    const e = { ...on('FailedDraining', 'Failed to drain node, evicting pod violates a PDB'), count: 533 };

    // Act / Assess
    expect(quoteEvent(e)).toBe(
      'FailedDraining ×533 (last 2026-01-01T00:00:00Z): Failed to drain node, evicting pod violates a PDB',
    );
  });
});
