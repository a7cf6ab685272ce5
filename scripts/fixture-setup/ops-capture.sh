#!/usr/bin/env bash
# Re-captures the real-output fixtures of the cloud/database/devops/observability/service
# rules. Needs the servers of ops-servers.sh, pm2 with the demo apps (below), and the
# tools installed: apt-get install postgresql redis-server mariadb-server sqlite3 sysstat
# procps lsof net-tools iproute2 gh; npm i -g pm2; pip install awscli; terraform and
# kubectl/gcloud/docker clients on PATH. Outputs that depend on the machine (pids,
# uptimes, sockets) change from run to run; re-read the golden files after a re-capture.
set -uo pipefail
cd "$(dirname "$0")/../.."
d=${OPS_FX:-/tmp/ops-fx}
cap() { scripts/capture-fixture "$@" >/dev/null; }
PG=(psql -h 127.0.0.1 -p 55432 -U postgres -d shop)

# ---- database
cap database/psql orders -- "${PG[@]}" -c "SELECT c.name, c.country, o.id AS order_id, o.total, o.status FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id"
cap database/psql events-long -- "${PG[@]}" -c "SELECT id, kind, path FROM events ORDER BY id"
cap database/psql missing-column -- "${PG[@]}" -c "SELECT id, totl FROM orders WHERE status = 'shipped'"
cap database/mysql customers -- mariadb -S "$d/maria.sock" -u root shop -t -e "SELECT c.name, o.id, o.total, o.status FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id"
cap database/mysql syntax-error -- mariadb -S "$d/maria.sock" -u root shop -e "SELEC * FROM orders"
cap database/mysql missing-table -- mariadb -S "$d/maria.sock" -u root shop -e "SELECT * FROM invoices"
cap database/redis-cli info-memory -- redis-cli -p 56379 INFO memory
cap database/redis-cli wrong-type -- redis-cli -p 56379 LPUSH session:1 x
cap database/redis-cli refused -- redis-cli -p 56390 GET session:1
cap database/sqlite3 orders -- sqlite3 -header -column "$d/shop.db" "SELECT o.id, c.name, o.total, o.status FROM orders o JOIN customers c ON c.id = o.customer_id"
cap database/sqlite3 no-such-table -- sqlite3 "$d/shop.db" "SELECT * FROM invoices"
cap database/mongosh refused -- mongosh --quiet "mongodb://127.0.0.1:57017/shop" --eval "db.orders.find()"

# ---- observability
cap observability/free human -- free -h
cap observability/free bad-flag -- free --gigabites
cap observability/top batch -- top -b -n 1 -w 200
cap observability/top no-match -- top -b -n 1 -p 99999999
cap observability/vmstat samples -- vmstat 1 3
cap observability/vmstat bad-delay -- vmstat -x
cap observability/iostat extended -- iostat -x 1 1
cap observability/iostat unknown-device -- iostat -x nosuchdisk0 1 1
cap observability/htop bad-flag -- htop --batch

# ---- service
cap service/ss listening -- ss -ltnp
cap service/ss bad-flag -- ss --bogus
cap service/netstat listening -- netstat -tlnp
cap service/netstat bad-flag -- netstat --bogus
cap service/lsof listening -- lsof -nP -iTCP -sTCP:LISTEN
cap service/lsof no-match -- lsof -nP -i :65010
cap service/pm2 list -- pm2 list
cap service/pm2-logs api -- pm2 logs api --nostream --lines 200
cap service/pm2 describe-missing -- pm2 describe nosuchapp
cap service/service redis-status -- service redis-server status
cap service/service unknown -- service nosuchservice status
cap service/systemctl-status no-systemd -- systemctl status redis-server
cap service/journalctl no-journal -- journalctl -u api.service --no-pager
cap observability/top bad-iterations -- top -b -n x
cap observability/iostat bad-flag -- iostat -Q
cap service/journalctl bad-since -- journalctl --since=notatime --no-pager

# ---- terraform (project from ops-terraform.sh; no provider download needed)
tf=$d/tf
export TF_CLI_CONFIG_FILE=/dev/null TF_IN_AUTOMATION=
scripts/fixture-setup/ops-terraform.sh "$tf" v1
cap devops/terraform init --cwd "$tf" -- terraform init -no-color
cap devops/terraform plan-create --cwd "$tf" -- terraform plan -no-color
cap devops/terraform apply --cwd "$tf" -- terraform apply -auto-approve -no-color
scripts/fixture-setup/ops-terraform.sh "$tf" v2
cap devops/terraform plan-changes --cwd "$tf" -- terraform plan -no-color
scripts/fixture-setup/ops-terraform.sh "$tf" broken
cap devops/terraform plan-undeclared --cwd "$tf" -- terraform plan -no-color
cap devops/terraform apply-undeclared --cwd "$tf" -- terraform apply -auto-approve -no-color

# ---- clients whose servers/accounts are not here: real failures
cap devops/docker-ps no-daemon -- docker ps
cap devops/docker-images no-daemon -- docker images
cap devops/docker-logs no-daemon -- docker logs api
cap devops/docker-compose no-daemon -- docker compose ps
cap devops/docker-compose-logs no-daemon -- docker compose logs --tail 50
cap devops/docker-build no-daemon --cwd /tmp/ops-fx/dockerctx -- docker build -t shop/api .
cap devops/kubectl-get refused -- kubectl get pods
cap devops/kubectl-describe refused -- kubectl describe pod api-7d9f8b6c5-x2x8q
cap devops/kubectl-logs refused -- kubectl logs deploy/api
cap devops/kubectl-apply refused -- kubectl apply -f "$d/k8s/"
cap devops/kubectl-rollout refused -- kubectl rollout status deploy/api
cap cloud/gh not-logged-in -- gh issue list --json number,title,labels
cap cloud/gh-pr-checks not-logged-in -- gh pr checks 42 -R octo-org/shop
cap cloud/gh-run-log not-logged-in -- gh run view 123456 --log-failed -R octo-org/shop
cap cloud/aws no-credentials -- aws s3 ls --region us-east-1
cap cloud/aws configure-list -- aws configure list
cap cloud/gcloud config-list -- gcloud config list
cap cloud/gcloud no-auth -- gcloud compute instances list --project shop-prod
cap database/mongosh bad-uri -- mongosh --quiet "mongodb://127.0.0.1:notaport/shop" --eval "db.orders.find()"
# pm2 demo apps (start before the service/pm2 captures above):
#   pm2 start scripts/fixture-setup/ops-pm2-server.js --name api
#   pm2 start scripts/fixture-setup/ops-pm2-crash.js --name worker --max-restarts 3
cap service/service status-all -- service --status-all
cap service/pm2-logs bad-option -- pm2 logs --badopt
cap devops/docker-pull no-daemon -- docker pull postgres:16-alpine
