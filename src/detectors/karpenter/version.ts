/**
 * Karpenter's version as the detectors read it: the one parser, in the domain because the live scan
 * reads the controller's version too (src/domain/karpenter-controller.ts).
 */
export { parseVersion, versionAtLeast } from '../../domain/karpenter-controller.ts';
