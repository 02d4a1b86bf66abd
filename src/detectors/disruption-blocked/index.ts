/** The DISRUPTION_BLOCKED detector: the one export the registry reads. */
export { disruptionBlocked } from './detector.ts';
