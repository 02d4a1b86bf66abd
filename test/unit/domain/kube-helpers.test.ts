import { describe, expect, it } from 'vitest';
import { conditionOf, instanceIdFromProviderID, isNodeNotReady } from '../../../src/domain/kube-helpers.ts';
import { condition, node } from '../../factories/kube.ts';

describe('conditionOf', () => {
  it('the first condition of that type, none when the object has no such condition or no conditions', () => {
    const first = condition('Ready', 'False');
    const claim = { status: { conditions: [condition('Launched', 'True'), first, condition('Ready', 'True')] } };

    expect(conditionOf(claim, 'Ready')).toBe(first);
    expect(conditionOf(claim, 'Drifted')).toBeUndefined();
    expect(conditionOf({ status: {} }, 'Ready')).toBeUndefined();
    expect(conditionOf(undefined, 'Ready')).toBeUndefined();
  });
});

describe('isNodeNotReady (NODE_NOT_READY counts these nodes, CONSOLIDATION_BLOCKED leaves them out)', () => {
  it('Ready False or Unknown is NotReady', () => {
    expect(isNodeNotReady(node({ name: 'a', ready: false }))).toBe(true);
    const unknown = node({ name: 'b' });
    unknown.status = { conditions: [condition('Ready', 'Unknown', { reason: 'NodeStatusUnknown' })] };
    expect(isNodeNotReady(unknown)).toBe(true);
  });

  it('Ready True, no Ready condition, or no Node at all is not', () => {
    expect(isNodeNotReady(node({ name: 'a' }))).toBe(false);
    const silent = node({ name: 'b' });
    silent.status = { conditions: [condition('MemoryPressure', 'False')] };
    expect(isNodeNotReady(silent)).toBe(false);
    expect(isNodeNotReady(undefined)).toBe(false);
  });
});

describe('instanceIdFromProviderID (nodes and NodeClaims are matched to EC2 instances by it)', () => {
  it('the i- and lowercase hex the providerID ends with, trailing whitespace ignored', () => {
    expect(instanceIdFromProviderID('aws:///us-east-1a/i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(instanceIdFromProviderID('aws:///us-east-1a/i-0abc \n')).toBe('i-0abc');
    expect(instanceIdFromProviderID('i-0a')).toBe('i-0a');
    expect(instanceIdFromProviderID('aws:///us-east-1a/i-i-0ab')).toBe('i-0ab');
  });

  it('nothing for an ID that is not at the end, not hex, uppercase, empty or absent', () => {
    for (const id of [
      'aws:///us-east-1a/i-0abc/x',
      'aws:///us-east-1a/i-0ABC',
      'aws:///us-east-1a/i-',
      'kind://docker/x/node-1',
      'i',
      '-0a',
      '',
      ' ',
      undefined,
    ]) {
      expect(instanceIdFromProviderID(id)).toBeUndefined();
    }
  });
});
