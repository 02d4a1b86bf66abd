/** The CRD_CONVERSION_WEBHOOK_BROKEN detector: the one export the registry reads. */
export { crdConversionWebhookBroken } from './detector.ts';
