/**
 * The service's Lambda functions, by their names in serverless.yml, and the repository they are
 * built from. Its own module so that `npm run invoke` does not load the bundler to learn them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LAMBDA_FUNCTIONS = ['scan-dispatch', 'scan', 'interruptions', 'slack-notify', 'cleanup'] as const;
export type LambdaFunctionName = (typeof LAMBDA_FUNCTIONS)[number];

export function isLambdaFunction(name: string): name is LambdaFunctionName {
  return (LAMBDA_FUNCTIONS as readonly string[]).includes(name);
}

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
