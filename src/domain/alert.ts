import type { Severity } from './codes.ts';

/**
 * What an alert says happened. Finding alerts are deduplicated (opened, a reminder at most every
 * N hours, resolved); remediation outcomes and interruption alerts are sent once per occurrence.
 */
export type AlertEvent =
  | 'opened'
  | 'reminder'
  | 'resolved'
  | 'remediation-applied'
  | 'remediation-failed'
  /** The scan stopped between acting and recording what the action did (src/notify/remediation-alerts.ts). */
  | 'remediation-unknown'
  | 'interruption-unattended'
  | 'interruption-surge'
  | 'scheduled-maintenance';

/**
 * The service's own alert codes, beside the finding codes (docs/service.md, "Alerts"): they travel in the
 * `code` message attribute so subscription filter policies can select them.
 */
export type ServiceAlertCode =
  | 'CLUSTER_UNREADABLE'
  /** EKS says the cluster does not exist (ResourceNotFoundException): a typo, a wrong region or account, or deleted. */
  | 'CLUSTER_NOT_FOUND'
  | 'INTERRUPTION_UNATTENDED'
  | 'INTERRUPTION_SURGE'
  | 'SCHEDULED_MAINTENANCE';

export interface Alert {
  event: AlertEvent;
  severity: Severity;
  /** The cluster it is about (`-` for an account-wide alert). */
  cluster: string;
  /** A finding code, or one of SERVICE_ALERT_CODES. */
  code: string;
  /** One line: what is wrong where. */
  title: string;
  /** A few lines: cause, evidence, what the service did. Markdown as chat clients render it. */
  description: string;
  /** Commands or actions for a human, in order. */
  nextSteps: string[];
  /** Every alert about one problem carries the same thread id (a finding id, or a derived key). */
  threadId: string;
}

/**
 * The SNS message body: the custom notification format of Amazon Q Developer in chat applications
 * (formerly AWS Chatbot), which renders it in Slack or Teams with no code.
 */
export interface ChatNotification {
  version: '1.0';
  source: 'custom';
  id?: string;
  content: {
    textType?: 'client-markdown';
    title: string;
    description: string;
    nextSteps?: string[];
    keywords?: string[];
  };
  metadata?: {
    threadId?: string;
    summary?: string;
    eventType?: string;
    relatedResources?: string[];
    additionalContext?: Record<string, string>;
  };
}
