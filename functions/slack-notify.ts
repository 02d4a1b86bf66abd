import { readLoggingConfig, readSlackConfig } from '../src/config.ts';
import { composeSlackNotify } from '../src/service/compose/slack-notify.ts';
import { createSlackNotifyHandler } from '../src/service/handlers/slack-notify.ts';

export const handler = createSlackNotifyHandler(composeSlackNotify(readSlackConfig(), readLoggingConfig()));
