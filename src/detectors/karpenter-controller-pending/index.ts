/** The KARPENTER_CONTROLLER_PENDING detector: the one export the registry reads. */
export { controllerPending } from './detector.ts';
