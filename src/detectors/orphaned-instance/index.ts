/** The ORPHANED_INSTANCE detector: the one export the registry reads. */
export { orphanedInstance } from './detector.ts';
