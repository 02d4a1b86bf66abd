import { describe, expect, it } from 'vitest';
import { renderCleanupResult, type CleanupResultOptions } from '../../../src/cli/render/cleanup-result.ts';
import { ANSI_STYLE } from '../../../src/cli/render/style.ts';
import type { CleanupResult } from '../../../src/domain/cleanup.ts';
import { cleanupResult } from '../../factories/cleanup.ts';
import { ANSI } from './cli-harness.ts';

const options: CleanupResultOptions = {
  region: 'eu-central-1',
  deleteNodePools: true,
  again: 'karpenter-sentinel cleanup --cluster dev',
  apply: 'karpenter-sentinel cleanup --cluster dev --apply',
};

function resultOf(overrides: Partial<CleanupResult>): CleanupResult {
  return {
    ...cleanupResult({ cluster: 'dev', dryRun: true }),
    nodePoolsDeleted: ['default', 'spot'],
    instancesTerminated: ['i-0a3f1c9e8b7d6a501', 'i-0b7e2d4f6a8c9e102'],
    launchTemplatesDeleted: ['lt-0e7a3c9f1d5b82460'],
    instanceProfilesDeleted: ['dev_3712049821764'],
    ...overrides,
  };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

describe('renderCleanupResult', () => {
  it('puts the result’s notes (no such cluster) under the heading, before the steps', () => {
    const note = 'no cluster dev in eu-central-1 (deleted already, or a wrong name or region?): no NodePools to delete';

    const lines = renderCleanupResult(resultOf({ complete: true, nodePoolsDeleted: [], notes: [note] }), options).split('\n');

    expect(lines.slice(0, 4)).toEqual([
      'cleanup of cluster dev (eu-central-1) · DRY RUN — nothing changed',
      '',
      `Note: ${note}`,
      '',
    ]);
  });

  it('says what a dry run would do, step by step, and the command that does it', () => {
    const text = renderCleanupResult(resultOf({}), options);

    expect(text).toBe(
      [
        'cleanup of cluster dev (eu-central-1) · DRY RUN — nothing changed',
        '',
        'NodePools: 2 would be deleted',
        '  default',
        '  spot',
        'Instances: 2 would be terminated',
        '  i-0a3f1c9e8b7d6a501',
        '  i-0b7e2d4f6a8c9e102',
        'Launch templates: 1 would be deleted',
        '  lt-0e7a3c9f1d5b82460',
        'Instance profiles: 1 would be deleted',
        '  dev_3712049821764',
        '',
        'Dry run: nothing was changed. To do it: karpenter-sentinel cleanup --cluster dev --apply',
        '',
      ].join('\n'),
    );
  });

  it('lists the launch templates and instance profiles kept, each with why and the instances holding it', () => {
    const text = renderCleanupResult(
      resultOf({
        launchTemplatesHeld: [
          { id: 'lt-0c2f8b4e6a1d97305', reason: 'named by 1 instance not terminated', instances: ['i-0node'] },
        ],
        instanceProfilesHeld: [
          { name: 'dev_1', reason: 'attached to 2 instances not terminated', instances: ['i-0a', 'i-0b'] },
          { name: 'dev_2', reason: 'its role X is not the role of any EC2NodeClass' },
        ],
      }),
      options,
    );

    expect(text).toContain(
      [
        'Launch templates: 1 would be deleted',
        '  lt-0e7a3c9f1d5b82460',
        'Launch templates held: 1 would be kept',
        '  lt-0c2f8b4e6a1d97305: named by 1 instance not terminated (i-0node)',
        'Instance profiles: 1 would be deleted',
        '  dev_3712049821764',
        'Instance profiles held: 2 would be kept',
        '  dev_1: attached to 2 instances not terminated (i-0a, i-0b)',
        '  dev_2: its role X is not the role of any EC2NodeClass',
      ].join('\n'),
    );
  });

  it('says what was done when applied', () => {
    const text = renderCleanupResult(resultOf({ dryRun: false, launchTemplatesDeleted: [] }), options);

    expect(text).toMatch(/^cleanup of cluster dev \(eu-central-1\) · APPLIED\n/);
    expect(text).toContain('Instances: 2 terminated\n');
    expect(text).toContain('Launch templates: none deleted\n');
    expect(lastLine(text)).toBe('Complete: every step ran to its end without errors.');
  });

  it('says there is nothing to do when nothing is left', () => {
    const empty = resultOf({
      nodePoolsDeleted: [],
      instancesTerminated: [],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });

    expect(lastLine(renderCleanupResult(empty, options))).toBe('Nothing to clean up.');
    expect(lastLine(renderCleanupResult({ ...empty, dryRun: false }, options))).toBe('Complete: nothing was left to clean up.');
  });

  it('lists each error with its step and resource, and says to fix them and run again', () => {
    const result = resultOf({
      dryRun: false,
      complete: false,
      errors: [
        { step: 'nodepools', message: 'Kubernetes API unreachable: connect ETIMEDOUT; NodePools not deleted' },
        { step: 'instances', resource: 'i-0b7e2d4f6a8c9e102', message: 'TerminateInstances failed: UnauthorizedOperation' },
      ],
    });

    const text = renderCleanupResult(result, options);

    expect(text).toMatch(/· APPLIED · NOT COMPLETE\n/);
    expect(text).toContain(
      [
        '2 ERRORS:',
        '  nodepools: Kubernetes API unreachable: connect ETIMEDOUT; NodePools not deleted',
        '  instances i-0b7e2d4f6a8c9e102: TerminateInstances failed: UnauthorizedOperation',
      ].join('\n'),
    );
    expect(lastLine(text)).toBe(
      '2 errors above: fix them, then run again, nothing is done twice: karpenter-sentinel cleanup --cluster dev',
    );
  });

  it('says which steps the ordering held back and why, in their place', () => {
    const reason = 'instances not all known terminated: 1 instance not terminated (i-0b7e2d4f6a8c9e102; see errors)';
    const result = resultOf({
      dryRun: false,
      complete: false,
      instancesTerminated: ['i-0a3f1c9e8b7d6a501'],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
      errors: [
        { step: 'instances', resource: 'i-0b7e2d4f6a8c9e102', message: 'TerminateInstances failed: UnauthorizedOperation' },
      ],
      stepsNotStarted: [
        { step: 'instances', nodePools: ['spot'], reason: 'NodePool spot could not be deleted (see errors)' },
        { step: 'launch-templates', reason },
        { step: 'instance-profiles', reason },
      ],
    });

    const text = renderCleanupResult(result, options);

    expect(text).toContain(
      [
        'Instances: 1 terminated',
        '  i-0a3f1c9e8b7d6a501',
        '  not started for NodePool spot — NodePool spot could not be deleted (see errors)',
        `Launch templates: not started — ${reason}`,
        `Instance profiles: not started — ${reason}`,
      ].join('\n'),
    );
  });

  it('after a dry run that failed, says to run it again, and counts one error in the singular', () => {
    const result = resultOf({
      complete: false,
      errors: [{ step: 'instances', message: 'DescribeInstances failed: Throttling' }],
    });

    expect(lastLine(renderCleanupResult(result, options))).toBe(
      '1 error above: fix it, then run again: karpenter-sentinel cleanup --cluster dev',
    );
  });

  it('when time ran out and something failed, says both', () => {
    const result = resultOf({
      dryRun: false,
      complete: false,
      stoppedAt: 'launch-templates',
      errors: [{ step: 'instances', resource: 'i-0b7e2d4f6a8c9e102', message: 'TerminateInstances failed: Throttling' }],
    });

    expect(lastLine(renderCleanupResult(result, options))).toBe(
      'Time ran out at launch-templates, and 1 error above: fix it, then run again, nothing is done twice: karpenter-sentinel cleanup --cluster dev (it carries on from launch-templates)',
    );
  });

  it('when time ran out, marks where it stopped, what was not reached, and that a new run carries on', () => {
    const result = resultOf({
      dryRun: false,
      complete: false,
      stoppedAt: 'instances',
      instancesTerminated: ['i-0a3f1c9e8b7d6a501'],
      launchTemplatesDeleted: [],
      instanceProfilesDeleted: [],
    });

    const text = renderCleanupResult(result, options);

    expect(text).toContain('Instances: 1 terminated — stopped here (time ran out)\n  i-0a3f1c9e8b7d6a501\n');
    expect(text).toContain('Launch templates: not reached (time ran out)\nInstance profiles: not reached (time ran out)\n');
    expect(lastLine(text)).toBe(
      'Time ran out: run again, nothing is done twice: karpenter-sentinel cleanup --cluster dev (it carries on from instances)',
    );
  });

  it('says which steps the flags left alone', () => {
    const result = resultOf({ nodePoolsDeleted: [], launchTemplatesDeleted: [], instanceProfilesDeleted: [] });

    const text = renderCleanupResult(result, { ...options, nodePools: ['spot'], deleteNodePools: false });

    expect(text).toMatch(/^cleanup of cluster dev \(eu-central-1\) · only NodePools spot · DRY RUN/);
    expect(text).toContain('NodePools: left alone (--keep-nodepools)\n');
    expect(text).toContain('Launch templates: left alone (--nodepool given: they serve the whole cluster)\n');
    expect(text).toContain('Instance profiles: left alone (--nodepool given: they serve the whole cluster)\n');
  });

  it('colours only with a colour style, and never passes control characters from a message through', () => {
    const result = resultOf({ complete: false, errors: [{ step: 'instances', message: 'evil\u001b[31m text' }] });

    expect(renderCleanupResult(result, options)).not.toMatch(ANSI);
    expect(renderCleanupResult(result, options)).toContain('instances: evil\\x1b[31m text');
    expect(renderCleanupResult(result, { ...options, style: ANSI_STYLE })).toMatch(ANSI);
  });
});

describe('renderCleanupResult on a narrow terminal', () => {
  const long = {
    ...options,
    again: 'karpenter-sentinel cleanup --cluster platform-eks-dev --region eu-central-1 --timeout 20m',
    apply: 'karpenter-sentinel cleanup --cluster platform-eks-dev --region eu-central-1 --timeout 20m --apply',
    width: 60,
  };

  it('wraps an error under its item and keeps the command to run on a line of its own', () => {
    const result = resultOf({
      dryRun: false,
      complete: false,
      stoppedAt: 'launch-templates',
      errors: [
        {
          step: 'instances',
          resource: 'i-0b7e2d4f6a8c9e102',
          message: 'TerminateInstances failed: Throttling: Rate exceeded, retry after a while',
        },
      ],
    });

    const text = renderCleanupResult(result, long);

    expect(text).toContain(
      [
        '1 ERROR:',
        '  instances i-0b7e2d4f6a8c9e102: TerminateInstances failed:',
        '    Throttling: Rate exceeded, retry after a while',
      ].join('\n'),
    );
    expect(text.trimEnd().split('\n').slice(-4)).toEqual([
      'Time ran out at launch-templates, and 1 error above: fix it,',
      '  then run again, nothing is done twice (it carries on from',
      '  launch-templates):',
      `  ${long.again}`,
    ]);
  });

  it('after a dry run, puts the command that applies it whole on its own line', () => {
    const text = renderCleanupResult(resultOf({}), long);

    expect(text.trimEnd().split('\n').slice(-2)).toEqual(['Dry run: nothing was changed. To do it:', `  ${long.apply}`]);
    for (const line of text.split('\n')) if (line !== `  ${long.apply}`) expect(line.length).toBeLessThanOrEqual(60);
  });
});
