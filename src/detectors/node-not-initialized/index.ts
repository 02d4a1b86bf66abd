/** The NODE_NOT_INITIALIZED detector: the one export the registry reads. */
export { nodeNotInitialized } from './detector.ts';
