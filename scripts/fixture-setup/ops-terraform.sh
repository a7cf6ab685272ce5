#!/usr/bin/env bash
# A terraform project that needs no provider download (terraform_data is built in),
# for the devops/terraform fixtures:  scripts/fixture-setup/ops-terraform.sh [DIR]
# Stages: v1 (3 resources created by apply), v2 (one updated, one replaced, one
# destroyed, one added: for plan), broken (a reference to an undeclared resource).
set -euo pipefail
d=${1:-/tmp/ops-fx/tf}
stage=${2:-v1}
mkdir -p "$d"
cd "$d"
case $stage in
v1) rm -rf .terraform* terraform.tfstate*
cat > main.tf <<'TF'
resource "terraform_data" "app" {
  input = { image = "shop/api:1.4.0", replicas = 2 }
}
resource "terraform_data" "queue" {
  input = "orders-queue"
}
resource "terraform_data" "legacy_cron" {
  input = "nightly-report"
}
output "app_image" { value = terraform_data.app.output.image }
TF
;;
v2)
cat > main.tf <<'TF'
resource "terraform_data" "app" {
  input = { image = "shop/api:1.5.0", replicas = 3 }
}
resource "terraform_data" "queue" {
  input            = "orders-queue"
  triggers_replace = ["v2"]
}
resource "terraform_data" "cache" {
  input = "redis-7"
}
output "app_image" { value = terraform_data.app.output.image }
TF
;;
broken)
cat > main.tf <<'TF'
resource "terraform_data" "app" {
  input = { image = "shop/api:1.5.0", replicas = 3 }
}
resource "terraform_data" "worker" {
  input = terraform_data.queue.output
}
TF
;;
esac
