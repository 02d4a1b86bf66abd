import { manualRemediation, newFinding, type Finding } from '../../domain/finding.ts';
import { oneLine } from '../../domain/shape.ts';
import { knownClusterName } from '../../domain/snapshot.ts';
import type { Detector, DetectContext } from '../detector.ts';
import { controllerVersionOf } from '../karpenter/feature-gates.ts';
import { versionAtLeast } from '../karpenter/version.ts';
import { diagnose } from './diagnose.ts';
import type { Diagnosis } from './diagnosis.ts';
import { queueLog } from './queue-log.ts';
import { queueSetting } from './queue-setting.ts';
import { spotUse } from './spot-use.ts';

type Code = 'INTERRUPTION_HANDLING_OFF';

/**
 * INTERRUPTION_HANDLING_OFF: Karpenter's interruption handling cannot work — its queue setting and
 * what exists in the account disagree, so Spot interruptions, rebalance recommendations and
 * scheduled changes reach nodes with no cordon or drain (docs/findings.md#interruption_handling_off).
 * It reads the setting from the controller's spec (and, before v0.33, ConfigMap
 * karpenter-global-settings), the queue, its rules and the age of its oldest message as captured,
 * and the controller's log. A source that is a gap leaves its part unknown: never a cause. One
 * finding per controller; no cost (no instance bills for it).
 */
export const interruptionHandlingOff: Detector<Code> = {
  code: 'INTERRUPTION_HANDLING_OFF',
  requires: [],
  // The controller's spec or its log: either may show the setting or its failure.
  anyOf: ['deployments', 'pods', 'logs'],
  refinedBy: ['configmaps', 'nodeclaims', 'nodes', 'nodepools', 'interruptionqueue', 'queuerules', 'queueage', 'logs'],
  detect(ctx) {
    const controller = ctx.index.controllers[0];
    const version = controllerVersionOf(controller);
    // Karpenter has had interruption handling since v0.19.
    if (versionAtLeast(version, 0, 19) === false) return [];
    const { snapshot } = ctx;
    const diagnosis = diagnose({
      snapshot,
      controller,
      version,
      setting: queueSetting({
        controller,
        version,
        configMaps: snapshot.configMaps,
        configMapsCaptured: snapshot.captured.has('configmaps'),
      }),
      log: queueLog(snapshot.logs),
      spot: spotUse(snapshot),
      clusterName: knownClusterName(snapshot),
    });
    return diagnosis ? [findingOf(ctx, diagnosis)] : [];
  },
};

function findingOf(ctx: DetectContext, d: Diagnosis): Finding<Code> {
  const controller = ctx.index.controllers[0];
  return newFinding({
    code: 'INTERRUPTION_HANDLING_OFF',
    severity: 'warning',
    title: oneLine(d.title, 300),
    resource: {
      kind: 'Deployment',
      namespace: controller?.namespace ?? 'karpenter',
      name: controller?.deploymentName ?? 'karpenter',
    },
    since: d.since ?? null,
    cause: { code: d.cause, detail: d.detail },
    evidence: d.evidence,
    remediation: manualRemediation(d.steps),
    counts: { objects: 1 },
  });
}
