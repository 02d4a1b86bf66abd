variable "cluster_name" {
  description = "The EKS cluster whose Karpenter resources are cleaned up on destroy."
  type        = string

  validation {
    # EKS's own rule; the name also goes into the function's JSON payload, so nothing else may pass.
    condition     = can(regex("^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$", var.cluster_name))
    error_message = "cluster_name must be an EKS cluster name: 1-100 letters, digits, - and _, a letter or digit first."
  }
}

variable "function_name" {
  description = "The deployed cleanup function: karpenter-sentinel-<stage>-cleanup (the Serverless naming convention), or its ARN."
  type        = string

  validation {
    condition     = can(regex("^(arn:aws[a-zA-Z-]*:lambda:[a-z0-9-]+:[0-9]{12}:function:)?[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]+)?$", var.function_name))
    error_message = "function_name must be a Lambda function name (e.g. karpenter-sentinel-prod-cleanup) or ARN."
  }
}

variable "region" {
  description = "The function's region. null: the AWS CLI's own configuration on the machine running terraform (AWS_REGION, AWS_DEFAULT_REGION, the profile)."
  type        = string
  default     = null
}

variable "aws_profile" {
  description = "The AWS CLI profile to invoke the function with. null: the CLI's default credentials (the provider's `profile` is not passed on to the CLI)."
  type        = string
  default     = null
}

variable "node_pools" {
  description = "Only these NodePools and their instances. Empty (the default): every NodePool, and then Karpenter's launch templates and instance profiles too."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for p in var.node_pools : length(p) <= 253 && can(regex("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", p))])
    error_message = "node_pools must hold NodePool names (lowercase letters, digits, - and ., a letter or digit at each end)."
  }
}

variable "delete_node_pools" {
  description = "Delete the NodePools first, so Karpenter drains its nodes. false: terminate the instances only (e.g. the function cannot reach the cluster's API)."
  type        = bool
  default     = true
  nullable    = false
}

variable "max_attempts" {
  description = "Invocations before the destroy fails, when each one runs out of its 15 minutes. Every invocation carries on where the last stopped."
  type        = number
  default     = 8
  nullable    = false

  validation {
    condition     = var.max_attempts >= 1 && floor(var.max_attempts) == var.max_attempts
    error_message = "max_attempts must be a whole number >= 1."
  }
}
