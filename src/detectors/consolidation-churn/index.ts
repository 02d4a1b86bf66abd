/** The CONSOLIDATION_CHURN detector: the one export the registry reads. */
export { consolidationChurn } from './detector.ts';
