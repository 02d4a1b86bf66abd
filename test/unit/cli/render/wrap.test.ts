import { describe, expect, it } from 'vitest';
import { ANSI_STYLE } from '../../../../src/cli/render/style.ts';
import { displayWidth, shorten, wrapBeforeCommand, wrapLine } from '../../../../src/cli/render/wrap.ts';

describe('wrapLine', () => {
  it('breaks at spaces, keeps the line’s own indent and hangs the rest under the given one', () => {
    const line = '  cause: FARGATE_SCHEDULER_RACE — the pod was created before the profile was active';

    expect(wrapLine(line, 40, '    ')).toEqual([
      '  cause: FARGATE_SCHEDULER_RACE — the',
      '    pod was created before the profile',
      '    was active',
    ]);
  });

  it('leaves a line that fits alone, spaces and all', () => {
    expect(wrapLine('  a  b', 10, '    ')).toEqual(['  a  b']);
  });

  it('keeps a word longer than the width whole, on a line of its own', () => {
    const arn = 'arn:aws:iam::731924518360:instance-profile/karpenter/eu-central-1/platform-eks-dev';

    expect(wrapLine(`    - profile ${arn} is left`, 40, '      ')).toEqual(['    - profile', `      ${arn}`, '      is left']);
  });

  it('measures what is seen: colour codes take no columns, and colour open at a break is closed and reopened', () => {
    const line = `  ${ANSI_STYLE.bold('snapshot incomplete (see gaps): nothing is terminated on partial data')}`;

    const lines = wrapLine(line, 40, '    ');

    expect(lines.map(displayWidth).every((w) => w <= 40)).toBe(true);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('  \u001b[1msnapshot incomplete (see gaps):\u001b[0m');
    expect(lines[1]).toBe('    \u001b[1mnothing is terminated on partial\u001b[0m');
    expect(lines[2]).toBe('    \u001b[1mdata\u001b[22m');
  });
});

describe('wrapBeforeCommand', () => {
  it('puts the command whole on its own line when prose and command do not fit together', () => {
    const command = 'karpenter-sentinel cleanup --cluster platform-eks-dev --region eu-central-1 --apply';

    expect(wrapBeforeCommand('Dry run: nothing was changed. To do it:', command, 60, '  ')).toEqual([
      'Dry run: nothing was changed. To do it:',
      `  ${command}`,
    ]);
    expect(wrapBeforeCommand('To do it:', 'karpenter-sentinel cleanup --apply', 60, '  ')).toEqual([
      'To do it: karpenter-sentinel cleanup --apply',
    ]);
  });
});

describe('shorten', () => {
  it('cuts at a word boundary and marks the cut', () => {
    expect(shorten('Deployment karpenter/karpenter (ready 0 of 2)', 32)).toBe('Deployment karpenter/karpenter …');
    expect(shorten('Deployment karpenter/karpenter (ready 0 of 2)', 31)).toBe('Deployment …');
    expect(shorten('Deployment karpenter/karpenter', 40)).toBe('Deployment karpenter/karpenter');
  });

  it('cuts inside a first word that alone is too long, still marked', () => {
    expect(shorten('SPOT_SERVICE_LINKED_ROLE_MISSING', 12)).toBe('SPOT_SERVIC…');
  });
});
