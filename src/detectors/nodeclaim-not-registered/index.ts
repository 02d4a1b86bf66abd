/** The NODECLAIM_NOT_REGISTERED detector: the one export the registry reads. */
export { nodeClaimNotRegistered } from './detector.ts';
