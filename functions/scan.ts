import { readLoggingConfig, readScanConfig } from '../src/config.ts';
import { composeScan } from '../src/service/compose/scan.ts';
import { createScanHandler } from '../src/service/handlers/scan.ts';

export const handler = createScanHandler(composeScan(readScanConfig(), readLoggingConfig()));
