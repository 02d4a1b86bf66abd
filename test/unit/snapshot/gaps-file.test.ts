import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/domain/errors.ts';
import { setAsideGap } from '../../../src/domain/snapshot.ts';
import { snapshotFromFiles } from '../../../src/snapshot/build-snapshot.ts';
import { gapsFileText } from '../../../src/snapshot/gaps-file.ts';

describe('gaps.json (written by snapshot --out)', () => {
  it('reads back into the same gaps, and its notes into notes naming the file', () => {
    const text = gapsFileText({
      gaps: [setAsideGap('pods', 2), { source: 'nodeclaims', error: '403 Forbidden: nodeclaims is forbidden' }],
      notes: ['Kubernetes API: Pod shop/web-1: spec.containers is a string, expected a list; object set aside'],
    });

    const { snapshot, notices } = snapshotFromFiles([{ path: 'capture/gaps.json', text }]);

    expect(snapshot.gaps).toEqual([
      { source: 'pods', error: '2 objects set aside as malformed (see notes)' },
      { source: 'nodeclaims', error: '403 Forbidden: nodeclaims is forbidden' },
    ]);
    // It records what was missing; it captures nothing itself.
    expect(snapshot.captured.size).toBe(0);
    expect(notices).toEqual([
      'capture/gaps.json: Kubernetes API: Pod shop/web-1: spec.containers is a string, expected a list; object set aside',
    ]);
  });

  it('shows hostile text from a hand-made gaps.json as visible text on one line', () => {
    const text = JSON.stringify({
      apiVersion: 'karpenter-sentinel/v1',
      kind: 'CaptureGaps',
      gaps: [],
      notes: ['evil\u001b]8;;https://x.example\u0007 \u202eexe.txt\nnote: forged'],
    });

    const { notices } = snapshotFromFiles([{ path: 'gaps.json', text }]);

    expect(notices).toEqual(['gaps.json: evil ]8;;https://x.example  \\u202eexe.txt note: forged']);
  });

  it('is one clean input error when its gaps are not ours', () => {
    const text = JSON.stringify({
      apiVersion: 'karpenter-sentinel/v1',
      kind: 'CaptureGaps',
      gaps: [{ source: 'secrets', error: 'x' }],
    });

    expect(() => snapshotFromFiles([{ path: 'gaps.json', text }])).toThrow(InputError);
    expect(() => snapshotFromFiles([{ path: 'gaps.json', text }])).toThrow(/gaps\[0\]: needs a source/);
  });
});
