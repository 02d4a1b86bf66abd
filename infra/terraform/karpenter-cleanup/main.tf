# Runs karpenter-sentinel's `cleanup` function when this resource is destroyed: NodePools deleted
# while the controller still runs, then every remaining Karpenter instance terminated, then
# Karpenter's launch templates and instance profiles deleted. A failure fails the destroy.
#
# Give the module `depends_on` on the Karpenter Helm release, the NodePools and the cluster: Terraform
# destroys in reverse dependency order, so this resource goes (and the cleanup runs) before them.
resource "terraform_data" "cleanup" {
  # A destroy-time provisioner may only read `self`, so everything it needs is kept here, in the state.
  # `input`, not `triggers_replace`: a change is an in-place update. Replacing this resource would run
  # the cleanup against a live cluster.
  input = {
    cluster_name      = var.cluster_name
    function_name     = var.function_name
    region            = var.region == null ? "" : var.region
    aws_profile       = var.aws_profile == null ? "" : var.aws_profile
    node_pools        = var.node_pools
    delete_node_pools = var.delete_node_pools
    max_attempts      = var.max_attempts
  }

  provisioner "local-exec" {
    when = destroy
    # `sh script`: needs no execute bit (some module sources drop it) and no bash.
    interpreter = ["sh"]
    command     = "${path.module}/invoke-cleanup.sh"

    # Unset rather than empty, so the runner's own AWS_REGION / AWS_PROFILE still apply.
    environment = merge(
      {
        CLUSTER_NAME      = self.input.cluster_name
        FUNCTION_NAME     = self.input.function_name
        NODE_POOLS        = join(",", self.input.node_pools)
        DELETE_NODE_POOLS = tostring(self.input.delete_node_pools)
        MAX_ATTEMPTS      = tostring(self.input.max_attempts)
        DRY_RUN           = "false"
      },
      { for name, value in { AWS_REGION = self.input.region, AWS_PROFILE = self.input.aws_profile } : name => value if value != "" },
    )
  }
}
