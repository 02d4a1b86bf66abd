/** The NODEPOOL_NOT_READY detector: the one export the registry reads. */
export { nodePoolNotReady } from './detector.ts';
