/** The KARPENTER_IAM_DENIED detector: the one export the registry reads. */
export { karpenterIamDenied } from './detector.ts';
