/** The NODECLAIM_LAUNCH_FAILED detector: the one export the registry reads. */
export { nodeClaimLaunchFailed } from './detector.ts';
