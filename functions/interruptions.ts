import { readLoggingConfig, readInterruptionsConfig } from '../src/config.ts';
import { composeInterruptions } from '../src/service/compose/interruptions.ts';
import { createInterruptionsHandler } from '../src/service/handlers/interruptions.ts';

export const handler = createInterruptionsHandler(composeInterruptions(readInterruptionsConfig(), readLoggingConfig()));
