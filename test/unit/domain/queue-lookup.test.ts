/** The one reader of Karpenter's interruption queue setting (src/domain/queue-lookup.ts), by version. */
import { describe, expect, it } from 'vitest';
import type { ConfigMap, Container } from '../../../src/domain/kube.ts';
import { queueSettingOf } from '../../../src/domain/queue-lookup.ts';

const SETTINGS: ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'karpenter-global-settings', namespace: 'karpenter' },
  data: { 'aws.interruptionQueueName': 'from-configmap' },
};

function controller(input: Partial<Container>): Container[] {
  return [{ name: 'controller', ...input }];
}

describe('queueSettingOf', () => {
  it('v0.31 reads only the ConfigMap; v0.32 the flag or env first; v0.33+ never the ConfigMap (a leftover is stale)', () => {
    const withEnv = controller({ env: [{ name: 'INTERRUPTION_QUEUE', value: 'from-env' }] });
    expect(queueSettingOf(withEnv, '0.31.4', SETTINGS)).toEqual({ state: 'set', value: 'from-configmap', from: 'configmap' });
    expect(queueSettingOf(withEnv, '0.32.3', SETTINGS)).toEqual({ state: 'set', value: 'from-env', from: 'env' });
    expect(queueSettingOf(controller({}), '0.32.3', SETTINGS)).toEqual({
      state: 'set',
      value: 'from-configmap',
      from: 'configmap',
    });
    expect(queueSettingOf(controller({}), '1.0.0', SETTINGS)).toEqual({ state: 'unset', staleConfigMap: 'from-configmap' });
  });

  it('takes one dash or two, the last flag with a value, and an explicit empty flag as off (never the env)', () => {
    const env = [{ name: 'INTERRUPTION_QUEUE', value: 'from-env' }];
    expect(queueSettingOf(controller({ args: ['-interruption-queue=x'], env }), '1.0.0')).toMatchObject({ value: 'x' });
    expect(queueSettingOf(controller({ args: ['--interruption-queue=x', '--interruption-queue'], env }), '1.0.0')).toMatchObject({
      value: 'x',
    });
    expect(queueSettingOf(controller({ args: ['--interruption-queue', 'y'], env }), '1.0.0')).toMatchObject({ value: 'y' });
    expect(queueSettingOf(controller({ args: ['--interruption-queue='], env }), '1.0.0')).toEqual({ state: 'unset' });
  });

  it("reads the container named controller, else the first (the detector's choice)", () => {
    const sidecarFirst: Container[] = [
      { name: 'karpenter', args: ['--interruption-queue=first'] },
      { name: 'metrics-proxy', args: ['--interruption-queue=second'] },
    ];
    expect(queueSettingOf(sidecarFirst, '1.0.0')).toMatchObject({ value: 'first' });
  });

  it('reads nothing from shapes a hand-edited capture may hold (a string for args, env or containers)', () => {
    expect(queueSettingOf(controller({ args: '--interruption-queue=x' as unknown as string[] }), '1.0.0')).toEqual({
      state: 'unset',
    });
    expect(queueSettingOf(controller({ env: 'INTERRUPTION_QUEUE=x' as unknown as [] }), '1.0.0')).toEqual({ state: 'unset' });
    expect(queueSettingOf('controller', undefined, SETTINGS)).toEqual({
      state: 'set',
      value: 'from-configmap',
      from: 'configmap',
    });
  });
});
