/** The INSTANCE_PROVENANCE_UNPROVEN detector: the one export the registry reads. */
export { instanceProvenanceUnproven } from './detector.ts';
