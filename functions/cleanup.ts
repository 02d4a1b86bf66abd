import { readLoggingConfig, readCleanupConfig } from '../src/config.ts';
import { composeCleanup } from '../src/service/compose/cleanup.ts';
import { createCleanupHandler } from '../src/service/handlers/cleanup.ts';

export const handler = createCleanupHandler(composeCleanup(readCleanupConfig(), readLoggingConfig()));
