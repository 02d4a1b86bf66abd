import { describe, expect, it } from 'vitest';
import { CleanupRequestError, parseCleanupRequest } from '../../../src/cleanup/request.ts';

function rejection(event: unknown): CleanupRequestError {
  try {
    parseCleanupRequest(event);
  } catch (error) {
    if (error instanceof CleanupRequestError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(event)}`);
}

describe('parseCleanupRequest', () => {
  it('defaults to a dry run of every NodePool, deleting NodePools', () => {
    expect(parseCleanupRequest({ clusterName: 'platform-eks-dev' })).toEqual({
      clusterName: 'platform-eks-dev',
      dryRun: true,
      deleteNodePools: true,
    });
  });

  it('reads every field', () => {
    const request = parseCleanupRequest({
      clusterName: 'platform-eks-dev',
      dryRun: false,
      nodePools: ['spot-pool', 'gpu.a100', 'spot-pool'],
      deleteNodePools: false,
    });

    expect(request).toEqual({
      clusterName: 'platform-eks-dev',
      dryRun: false,
      nodePools: ['spot-pool', 'gpu.a100'],
      deleteNodePools: false,
    });
  });

  it.each([
    [{ clusterName: 'c', dryRun: 'false' }, 'dryRun', 'dryRun must be true or false (a JSON boolean), got "false"'],
    [{ clusterName: 'c', dryRun: 0 }, 'dryRun', 'got 0'],
    [{ clusterName: 'c', dryRun: null }, 'dryRun', 'got null'],
    [{ clusterName: 'c', deleteNodePools: 'yes' }, 'deleteNodePools', 'deleteNodePools must be true or false'],
    [{ dryRun: true }, 'clusterName', 'clusterName is required'],
    [{ clusterName: '' }, 'clusterName', 'clusterName must be an EKS cluster name'],
    [{ clusterName: 'prod eu' }, 'clusterName', 'got "prod eu"'],
    [{ clusterName: 42 }, 'clusterName', 'got 42'],
    [{ clusterName: 'c', nodePools: 'spot-pool' }, 'nodePools', 'nodePools must be a list of NodePool names, got "spot-pool"'],
    [
      { clusterName: 'c', nodePools: [] },
      'nodePools',
      'nodePools must name at least one NodePool (leave it out for all of them)',
    ],
    [{ clusterName: 'c', nodePools: ['ok', '', 'Spot Pool', 3] }, 'nodePools', 'got [1] "", [2] "Spot Pool", [3] 3'],
    [{ clusterName: 'c', dryrun: false }, 'dryrun', 'unknown field "dryrun" (did you mean "dryRun"?)'],
    [
      { clusterName: 'c', cluster: 'c' },
      'cluster',
      'unknown field "cluster" (the fields are clusterName, dryRun, nodePools, deleteNodePools)',
    ],
  ])('%j is refused naming %s', (event, field, message) => {
    const error = rejection(event);

    expect(error.fields).toEqual([field]);
    expect(error.message).toContain(message);
    expect(error.message).toMatch(/^invalid cleanup request: /);
    expect(error.message).not.toContain('\n');
  });

  it('a misspelt dryRun is never taken for the default: the request is refused', () => {
    const error = rejection({ clusterName: 'c', DryRun: true, dryRun: false });

    expect(error.fields).toEqual(['DryRun']);
  });

  it('names every wrong field in one line', () => {
    const error = rejection({ clusterName: 'prod eu', dryRun: 'no', node_pools: ['a'] });

    expect(error.fields.sort()).toEqual(['clusterName', 'dryRun', 'node_pools']);
    expect(error.message.split('; ')).toHaveLength(3);
  });

  it.each([[null], [[]], ['platform-eks-dev'], [undefined]])('%j is not a request', (event) => {
    const error = rejection(event);

    expect(error.fields).toEqual(['event']);
    expect(error.message).toContain('expected a JSON object like {"clusterName": "my-cluster", "dryRun": true}');
  });

  it('carries no stack frames (Lambda would log and return them)', () => {
    expect(rejection({}).stack).toBe('CleanupRequestError: invalid cleanup request: clusterName is required');
  });
});
