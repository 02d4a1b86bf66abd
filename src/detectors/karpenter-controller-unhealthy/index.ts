/** The KARPENTER_CONTROLLER_UNHEALTHY detector: the one export the registry reads. */
export { controllerUnhealthy } from './detector.ts';
