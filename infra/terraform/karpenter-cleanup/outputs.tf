output "cleanup_payload" {
  description = "The event the destroy hook sends (with dryRun true): try it by hand with `aws lambda invoke` before the real destroy."
  value = jsonencode(merge(
    { clusterName = var.cluster_name, dryRun = true, deleteNodePools = var.delete_node_pools },
    length(var.node_pools) > 0 ? { nodePools = var.node_pools } : {},
  ))
}
