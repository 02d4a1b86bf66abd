# Onboard one EKS cluster to karpenter-sentinel with Terraform (AWS provider >= 5.33).
#
# Use: copy this file next to your cluster's configuration (or into a module), set the variables
# (cleanup_role_arn only to let the cleanup function delete NodePools), `terraform apply`, then
# apply the RBAC the groups are bound to:
#   kubectl apply -f infra/kubernetes/rbac.yaml
#
# The cluster's authentication mode must allow access entries (API or API_AND_CONFIG_MAP).

variable "cluster_name" {
  description = "The EKS cluster to onboard"
  type        = string
}

variable "sentinel_role_arn" {
  description = "The karpenter-sentinel stack's ScanRoleArn output"
  type        = string
}

variable "cleanup_role_arn" {
  description = "The karpenter-sentinel stack's CleanupRoleArn output; null for no cleanup access"
  type        = string
  default     = null
}

# The scan function's role joins the karpenter-sentinel Kubernetes group; no EKS access policy is
# associated: its permissions are exactly infra/kubernetes/rbac.yaml.
resource "aws_eks_access_entry" "karpenter_sentinel" {
  cluster_name      = var.cluster_name
  principal_arn     = var.sentinel_role_arn
  type              = "STANDARD"
  kubernetes_groups = ["karpenter-sentinel"]
}

# The cleanup function's role joins its own group, karpenter-sentinel-cleanup (list and delete
# NodePools, list NodeClaims and pods). A destroy-time hook invoking cleanup should depend on this entry, so
# that the destroy removes the entry only after the cleanup ran. Without it, invoke cleanup with
# "deleteNodePools": false (it then only terminates instances and deletes launch templates/profiles).
resource "aws_eks_access_entry" "karpenter_sentinel_cleanup" {
  count             = var.cleanup_role_arn == null ? 0 : 1
  cluster_name      = var.cluster_name
  principal_arn     = var.cleanup_role_arn
  type              = "STANDARD"
  kubernetes_groups = ["karpenter-sentinel-cleanup"]
}

# Opting the cluster in: scan-dispatch scans every cluster tagged karpenter-sentinel/enabled=true
# (unless the service is deployed with an explicit `clusters` list). EKS cluster tags live on the
# cluster resource, so add the tag where the cluster is defined:
#
#   resource "aws_eks_cluster" "this" {
#     # ...
#     tags = {
#       "karpenter-sentinel/enabled" = "true"
#     }
#   }
#
# (terraform-aws-modules/eks v20: `cluster_tags = { "karpenter-sentinel/enabled" = "true" }`), or, for a
# cluster Terraform does not manage:
#   aws eks tag-resource --resource-arn "$(aws eks describe-cluster --name NAME --query cluster.arn --output text)" \
#     --tags karpenter-sentinel/enabled=true
