/** The NODECLASS_NOT_READY detector: the one export the registry reads. */
export { nodeClassNotReady } from './detector.ts';
