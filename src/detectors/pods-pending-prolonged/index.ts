/** The PODS_PENDING_PROLONGED detector: the one export the registry reads. */
export { podsPendingProlonged } from './detector.ts';
