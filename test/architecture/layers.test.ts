import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The dependency rule (eslint.config.js, docs/architecture.md) on planted imports. */
const eslint = new ESLint({ cwd: resolve(import.meta.dirname, '../..') });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the dependency rule', () => {
  it.each([
    ['src/domain/x.ts', "import { x } from '../adapters/aws/ec2.ts';"],
    ['src/domain/x.ts', "import type { x } from '../snapshot/load.ts';"],
    ['src/domain/x.ts', "import { x } from 'node:fs';"],
    ['src/detectors/foo.ts', "import { x } from '@aws-sdk/client-ec2';"],
    ['src/detectors/foo.ts', "import { x } from '@kubernetes/client-node';"],
    ['src/detectors/scheduling/foo.ts', "import type { x } from '../../usecases/analyze.ts';"],
    ['src/detectors/crd-conversion-webhook-broken/x.ts', "import { x } from '../../snapshot/cli-error-text.ts';"],
    ['src/detectors/karpenter/foo.ts', "import { x } from '@aws-sdk/client-ec2';"],
    ['src/detectors/karpenter-controller-pending/x.ts', "import { x } from '../pods-pending-prolonged/nodepools.ts';"],
    ['src/detectors/scheduling/x.ts', "import type { x } from '../karpenter-controller-pending/controller-steps.ts';"],
    ['src/cleanup/x.ts', "import { x } from '../detectors/scheduling/pending.ts';"],
    ['src/remediations/x.ts', "import type { x } from '../detectors/detector.ts';"],
    ['src/collect/x.ts', "import { x } from '../detectors/registry.ts';"],
    ['src/interruptions/x.ts', "import { x } from '../detectors/karpenter/readiness.ts';"],
    ['src/ports/x.ts', "import type { x } from '../snapshot/load.ts';"],
    ['src/support/x.ts', "import { x } from '../snapshot/load.ts';"],
    ['src/adapters/aws/x.ts', "import { x } from '../../config.ts';"],
    ['src/adapters/aws/x.ts', "import { x } from '../../notify/finding-alerts.ts';"],
    ['src/notify/x.ts', "import { x } from '../usecases/analyze.ts';"],
    ['src/cleanup/x.ts', "import type { x } from '../usecases/scan-cluster.ts';"],
    ['src/cleanup/x.ts', "import { x } from '../collect/kube-sources.ts';"],
    ['src/cleanup/x.ts', "import type { x } from '../notify/finding-text.ts';"],
    ['src/cli/render/x.ts', "import { x } from '../../cleanup/text.ts';"],
    ['src/cli/render/x.ts', "import { x } from '../../service/middleware.ts';"],
    ['src/interruptions/x.ts', "import { x } from '../notify/interruption-alerts.ts';"],
    ['src/usecases/x.ts', "import type { x } from '../config.ts';"],
    ['src/usecases/x.ts', "import { x } from '../adapters/memory/state.ts';"],
    ['src/service/handlers/x.ts', "import { x } from '../../config.ts';"],
    ['src/service/compose/x.ts', "import { x } from '../../simulator/simulation.ts';"],
    ['src/simulator/x.ts', "import type { x } from '../usecases/scan-cluster.ts';"],
    ['src/usecases/x.ts', "export { x } from '../simulator/simulation.ts';"],
  ])('%s: %s is an error', async (filePath, code) => {
    expect(await restricted(filePath, code)).toHaveLength(1);
  });

  it.each([
    ['src/detectors/foo.ts', "import { x } from '../domain/snapshot-index.ts';"],
    ['src/detectors/registry.ts', "import { x } from './karpenter-controller-pending/detector.ts';"],
    ['src/detectors/karpenter-controller-pending/x.ts', "import { x } from '../scheduling/pending.ts';"],
    ['src/detectors/karpenter-controller-pending/x.ts', "import type { x } from '../detector.ts';"],
    ['src/detectors/karpenter-controller-pending/x.ts', "import { x } from './controller-steps.ts';"],
    ['src/detectors/cloud-errors/x.ts', "import { x } from '../karpenter/readiness.ts';"],
    ['src/detectors/karpenter/x.ts', "import { x } from '../../domain/auto-mode.ts';"],
    ['src/cleanup/x.ts', "import { x } from '../domain/auto-mode.ts';"],
    ['src/ports/x.ts', "import type { x } from '../domain/shape.ts';"],
    ['src/support/x.ts', "import { x } from '../domain/shape.ts';"],
    ['src/adapters/aws/x.ts', "import { x } from '@aws-sdk/client-ec2';"],
    ['src/adapters/aws/x.ts', "import type { x } from '../../ports/aws.ts';"],
    ['src/usecases/x.ts', "import { x } from '../detectors/registry.ts';"],
    ['src/service/compose/x.ts', "import { x } from '../../adapters/aws/ec2.ts';"],
    ['src/service/compose/x.ts', "import { x } from '../../config.ts';"],
    ['src/cli/x.ts', "import { x } from '../simulator/simulation.ts';"],
    ['src/cli/x.ts', "import { x } from '../cleanup/request.ts';"],
    ['src/cli/render/x.ts', "import { x } from '../../domain/words.ts';"],
    ['src/cleanup/x.ts', "import { x } from '../ports/failure-text.ts';"],
    ['src/simulator/x.ts', "import { x } from '../adapters/aws/ec2.ts';"],
  ])('%s: %s is allowed', async (filePath, code) => {
    expect(await restricted(filePath, code)).toEqual([]);
  });
});
