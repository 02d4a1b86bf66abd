/** The NODE_TERMINATION_STUCK detector: the one export the registry reads. */
export { nodeTerminationStuck } from './detector.ts';
