/**
 * The one place that reads the environment. Everything else receives plain, validated values.
 */

export interface TerminalEnvironment {
  /** NO_COLOR set (https://no-color.org): never colour. */
  noColor: boolean;
  /** FORCE_COLOR set to anything but 0/false: colour even off a TTY (0/false: never colour). */
  forceColor: boolean;
}

export function readTerminalEnvironment(env: NodeJS.ProcessEnv = process.env): TerminalEnvironment {
  const force = env.FORCE_COLOR;
  // Node's convention: FORCE_COLOR=0 (or false) turns colour off even on a terminal.
  const forceOff = force === '0' || force === 'false';
  return {
    noColor: (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || forceOff,
    forceColor: force !== undefined && force !== '' && !forceOff,
  };
}

/** Where the CLI's live scans look for their region and kubeconfig, as the AWS CLI and kubectl do. */
export interface CliCloudEnvironment {
  /** AWS_REGION, else AWS_DEFAULT_REGION. */
  region: string | undefined;
  /** KUBECONFIG (may list several files, joined by ':'). */
  kubeconfig: string | undefined;
}

export function readCliCloudEnvironment(env: NodeJS.ProcessEnv = process.env): CliCloudEnvironment {
  const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  return {
    region: nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION),
    kubeconfig: nonEmpty(env.KUBECONFIG),
  };
}
