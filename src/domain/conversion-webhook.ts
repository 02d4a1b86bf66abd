/**
 * The API server could not convert a Karpenter object (apiextensions-apiserver's words, the same
 * from v1.16 on): kubectl prints it after `Error from server:` or `... Internal error occurred:`;
 * some tools wrap it before `Post`. The error is the diagnosis (CRD_CONVERSION_WEBHOOK_BROKEN).
 * A Kubernetes string that the capture reader, the detector and the simulator all read, so it is
 * declared here, below all three.
 */
export const CONVERSION_WEBHOOK_FAILED =
  /conversion webhook for ([a-z0-9.-]+)\/(\w+), Kind=(\w+) failed:[ \t]*(?:\r?\n[ \t]*)?[^\r\n]*/g;
