/** The AMI_SELECTOR_UNSCOPED detector: the one export the registry reads. */
export { amiSelectorUnscoped } from './detector.ts';
