import { readLoggingConfig, readDispatchConfig } from '../src/config.ts';
import { composeScanDispatch } from '../src/service/compose/scan-dispatch.ts';
import { createScanDispatchHandler } from '../src/service/handlers/scan-dispatch.ts';

export const handler = createScanDispatchHandler(composeScanDispatch(readDispatchConfig(), readLoggingConfig()));
