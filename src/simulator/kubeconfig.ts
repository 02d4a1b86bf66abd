import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** Context, cluster and user name; `simulator` when absent. */
  name?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Bearer token of the user; the server's own token when absent. */
  token?: string;
}

/** A kubeconfig kubectl and client-node accept: the server, its CA inline, a bearer-token user. */
export function kubeconfigText(server: string, caPem: string, token: string, options: KubeconfigOptions = {}): string {
  const name = options.name ?? 'simulator';
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
      users: [{ name, user: { token: options.token ?? token } }],
      contexts: [
        { name, context: { cluster: name, user: name, ...(options.namespace ? { namespace: options.namespace } : {}) } },
      ],
      'current-context': name,
      preferences: {},
    },
    { lineWidth: 0 },
  );
}
