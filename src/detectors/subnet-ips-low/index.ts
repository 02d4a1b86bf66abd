/** The SUBNET_IPS_LOW detector: the one export the registry reads. */
export { subnetIpsLow } from './detector.ts';
