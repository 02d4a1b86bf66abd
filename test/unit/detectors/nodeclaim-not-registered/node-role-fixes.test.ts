import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixSteps } from '../../../../src/detectors/nodeclaim-not-registered/node-role-fixes.ts';
import type { NodeRole } from '../../../../src/detectors/nodeclaim-not-registered/node-role.ts';

const sandbox = mkdtempSync(join(tmpdir(), 'sentinel-aws-auth-'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

const NAME = "Node$(touch PWNED)';touch PWNED;'";
const role: NodeRole = {
  name: NAME,
  path: '/',
  pathKnown: true,
  arn: `arn:aws:iam::069057294951:role/${NAME}`,
  arnWithoutPath: `arn:aws:iam::069057294951:role/${NAME}`,
  source: 'EC2NodeClass default spec.role',
  instanceProfiles: [],
  windows: false,
  autoMode: false,
};

describe('fixSteps with a role name holding shell syntax', () => {
  it('prints an aws-auth entry and commands that, pasted whole, run nothing planted', () => {
    const steps = fixSteps('demo', role, 'CONFIG_MAP', 'eu-west-1', { wrongEntries: [], valid: false });

    const awsAuth = steps.find((s) => s.startsWith('kubectl edit configmap aws-auth'));
    expect(awsAuth).toContain(`- rolearn: 'arn:aws:iam::069057294951:role/Node$(touch PWNED)'';touch PWNED;'''`);
    for (const step of steps) {
      spawnSync('/bin/sh', ['-c', `kubectl() { :; }\neksctl() { :; }\naws() { :; }\n${step}\n`], {
        cwd: sandbox,
        stdio: 'ignore',
      });
    }
    expect(existsSync(join(sandbox, 'PWNED'))).toBe(false);
  });

  it('leaves an ordinary role ARN unquoted in the YAML', () => {
    const plain = {
      ...role,
      name: 'KarpenterNodeRole-demo',
      arnWithoutPath: 'arn:aws:iam::069057294951:role/KarpenterNodeRole-demo',
    };

    const steps = fixSteps('demo', plain, 'CONFIG_MAP', undefined, { wrongEntries: [], valid: false });

    expect(steps.join('\n')).toContain('- rolearn: arn:aws:iam::069057294951:role/KarpenterNodeRole-demo\n');
  });
});
