terraform {
  # terraform_data (the built-in replacement for null_resource) arrived in Terraform 1.4; no provider is needed.
  required_version = ">= 1.4"
}
