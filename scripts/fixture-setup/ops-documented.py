#!/usr/bin/env python3
"""Writes the ops fixtures that cannot be captured on this machine.

The tools below need a server, a cloud account, a docker engine, a Kubernetes cluster
or macOS, none of which exist here (the failure fixtures of most of them ARE real: see
ops-capture.sh). Their success outputs are written from each tool's documented output
format, with made-up names; every fixture's `about` says so. Long logs are the real
output of ops-logapp.js (run with node), framed the way the tool frames a container's
or unit's output.

  scripts/fixture-setup/ops-documented.py      # rewrites the files below rules/
"""
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
HERE = Path(__file__).resolve().parent


def doc(why):
    return f"written from the tool's documented output format ({why}); names are made up"


def fx(rule_id, case, command, text, exit_code, about, contains, excludes=(), tool="exec"):
    d, name = rule_id.split("/", 1)
    inp = {"toolName": tool}
    if command is not None:
        inp["command"] = command
    inp.update({"combinedText": text, "exitCode": exit_code})
    data = {
        "id": f"{d}-{name}-{case}",
        "ruleId": rule_id,
        "about": about,
        "input": inp,
        "expect": {"matchedReducer": rule_id, "contains": list(contains), "excludes": list(excludes)},
    }
    out = ROOT / "rules" / d / f"{name}.{case}.fixture.json"
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {out.relative_to(ROOT)} ({len(text)} chars)")


def logapp(mode="plain", n=300):
    return subprocess.run(["node", str(HERE / "ops-logapp.js"), mode, str(n)],
                          capture_output=True, text=True, check=True).stdout


LOG_ABOUT = ("real output of scripts/fixture-setup/ops-logapp.js ({mode}, {n} requests) run with node; "
             "{tool} passes a container's stdout/stderr through unchanged, and there is no {what} here")

# ---------------------------------------------------------------- cloud
fx("cloud/az", "group-list", "az group list --output table",
   """Name                    Location        Status
----------------------  --------------  ---------
rg-shop-prod            westeurope      Succeeded
rg-shop-staging         westeurope      Succeeded
rg-shop-dev             westeurope      Succeeded
rg-networking           westeurope      Succeeded
rg-monitoring           northeurope     Succeeded
rg-shop-dr              northeurope     Deleting
""", 0, doc("az needs an Azure account"),
   ["rg-shop-prod", "rg-shop-dr", "Deleting", "northeurope"])
fx("cloud/az", "not-logged-in", "az vm list --output table",
   "ERROR: Please run 'az login' to setup account.\n", 1, doc("az needs an Azure account"),
   ["ERROR: Please run 'az login' to setup account."])

fx("cloud/gcloud", "instances", "gcloud compute instances list",
   """NAME            ZONE            MACHINE_TYPE   PREEMPTIBLE  INTERNAL_IP  EXTERNAL_IP    STATUS
api-prod-1      europe-west2-a  e2-standard-2               10.154.0.4   34.89.10.21    RUNNING
api-prod-2      europe-west2-b  e2-standard-2               10.154.0.5   34.89.10.22    RUNNING
api-prod-3      europe-west2-c  e2-standard-2               10.154.0.6   34.89.10.23    RUNNING
worker-prod-1   europe-west2-a  e2-standard-4               10.154.0.7                  RUNNING
worker-prod-2   europe-west2-b  e2-standard-4               10.154.0.8                  TERMINATED
db-proxy        europe-west2-a  e2-small                    10.154.0.9                  RUNNING
""", 0, doc("gcloud needs a Google Cloud account; its config list fixture is real"),
   ["api-prod-1", "worker-prod-2", "TERMINATED", "34.89.10.23"])

fx("cloud/flyctl", "status", "fly status",
   """App
  Name     = shop-api
  Owner    = octo-org
  Hostname = shop-api.fly.dev
  Image    = shop-api:deployment-01JD3K8Q7X
  Platform = machines

Machines
PROCESS ID              VERSION REGION  STATE   ROLE    CHECKS                  LAST UPDATED
app     3d8d9e5a2e1189  42      lhr     started         1 total, 1 passing      2026-11-21T17:02:11Z
app     91857e2c6d0528  42      lhr     started         1 total, 1 passing      2026-11-21T17:02:19Z
app     e784e6d1c93348  42      ams     stopped         1 total, 1 critical     2026-11-21T17:03:40Z
worker  148e21ea7d0d89  42      lhr     started                                 2026-11-21T17:02:25Z
""", 0, doc("flyctl needs a Fly.io account"),
   ["shop-api.fly.dev", "e784e6d1c93348", "1 total, 1 critical", "worker  148e21ea7d0d89"])
fx("cloud/flyctl", "deploy-failed", "fly deploy",
   """==> Verifying app config
Validating /app/fly.toml
✓ Configuration is valid
--> Verified app config
==> Building image
Remote builder fly-builder-small-bird-1234 ready
==> Building image with Docker
--> docker host: 24.0.7 linux x86_64
#0 building with "default" instance using docker driver
#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 312B done
#1 DONE 0.0s
#2 [internal] load metadata for docker.io/library/node:22-slim
#2 DONE 0.6s
#3 [1/4] FROM docker.io/library/node:22-slim@sha256:4b2a0d8c1e
#3 CACHED
#4 [2/4] COPY package*.json ./
#4 DONE 0.1s
#5 [3/4] RUN npm ci --omit=dev
#5 2.118 npm error code ERESOLVE
#5 2.119 npm error ERESOLVE could not resolve
#5 2.120 npm error While resolving: shop-api@2.3.0
#5 2.120 npm error Found: react@18.3.1
#5 ERROR: process "/bin/sh -c npm ci --omit=dev" did not complete successfully: exit code: 1
------
 > [3/4] RUN npm ci --omit=dev:
2.119 npm error ERESOLVE could not resolve
2.120 npm error While resolving: shop-api@2.3.0
------
Error: failed to fetch an image or build from source: error building: failed to solve: process "/bin/sh -c npm ci --omit=dev" did not complete successfully: exit code: 1
""", 1, doc("flyctl needs a Fly.io account and a remote builder"),
   ["[3/4] RUN npm ci --omit=dev", "npm error ERESOLVE could not resolve", "Error: failed to fetch an image or build from source"])

fx("cloud/vercel", "deploy", "vercel deploy --prod",
   """Vercel CLI 39.1.1
Retrieving project…
Deploying octo-org/shop-web
Uploading [--------------------] (0.0B/1.2MB)
Uploading [==========----------] (612.0KB/1.2MB)
Uploading [====================] (1.2MB/1.2MB)
Inspect: https://vercel.com/octo-org/shop-web/9xKcY2m7pQ [3s]
Production: https://shop-web-h3k2l9x.vercel.app [3s]
Queued
Building
Completing
✅  Production: https://shop-web-h3k2l9x.vercel.app [41s]
🔗  Aliased: https://shop.example.com [41s]
""", 0, doc("vercel's npm package would not install here (a dependency version is missing from the registry) and deploying needs a Vercel account"),
   ["Inspect: https://vercel.com/octo-org/shop-web/9xKcY2m7pQ", "Production: https://shop-web-h3k2l9x.vercel.app", "Aliased: https://shop.example.com"],
   ["Uploading ["])
fx("cloud/vercel", "build-failed", "vercel deploy",
   """Vercel CLI 39.1.1
Retrieving project…
Deploying octo-org/shop-web
Inspect: https://vercel.com/octo-org/shop-web/4PqR8sT1uV [2s]
Preview: https://shop-web-git-feat-cart-octo-org.vercel.app [2s]
Queued
Building
Running "npm run build"
> shop-web@1.8.0 build
> next build
Failed to compile.
./src/app/cart/page.tsx:14:7
Type error: Property 'total' does not exist on type 'Cart'.
Error: Command "npm run build" exited with 1
Error: Check your logs at https://vercel.com/octo-org/shop-web/4PqR8sT1uV or run `vercel logs shop-web-git-feat-cart-octo-org.vercel.app`
""", 1, doc("vercel's npm package would not install here and deploying needs a Vercel account"),
   ["./src/app/cart/page.tsx:14:7", "Type error: Property 'total' does not exist on type 'Cart'.", "Error: Command \"npm run build\" exited with 1", "Inspect: https://vercel.com"])

fx("cloud/gh", "pr-list-json", "gh pr list --json number,title,state,author,labels,updatedAt,url,statusCheckRollup",
   json.dumps([
       {"author": {"id": "MDQ6VXNlcjE=", "is_bot": False, "login": "dana", "name": "Dana Dev"},
        "labels": [{"id": "LA_1", "name": "bug", "description": "", "color": "d73a4a"}],
        "number": 418, "state": "OPEN",
        "statusCheckRollup": [
            {"__typename": "CheckRun", "completedAt": "2026-11-21T10:04:00Z", "conclusion": "SUCCESS", "detailsUrl": "https://github.com/octo-org/shop/actions/runs/1/job/11", "name": "lint", "startedAt": "2026-11-21T10:02:00Z", "status": "COMPLETED", "workflowName": "CI"},
            {"__typename": "CheckRun", "completedAt": "2026-11-21T10:09:00Z", "conclusion": "FAILURE", "detailsUrl": "https://github.com/octo-org/shop/actions/runs/1/job/12", "name": "test (ubuntu-latest)", "startedAt": "2026-11-21T10:02:00Z", "status": "COMPLETED", "workflowName": "CI"}],
        "title": "Fix cart total rounding", "updatedAt": "2026-11-21T10:09:12Z",
        "url": "https://github.com/octo-org/shop/pull/418"},
       {"author": {"id": "MDQ6VXNlcjI=", "is_bot": True, "login": "app/dependabot", "name": ""},
        "labels": [{"id": "LA_2", "name": "dependencies", "description": "", "color": "0366d6"}],
        "number": 417, "state": "OPEN",
        "statusCheckRollup": [
            {"__typename": "CheckRun", "completedAt": "2026-11-20T08:03:00Z", "conclusion": "SUCCESS", "detailsUrl": "https://github.com/octo-org/shop/actions/runs/2/job/21", "name": "lint", "startedAt": "2026-11-20T08:01:00Z", "status": "COMPLETED", "workflowName": "CI"}],
        "title": "Bump express from 4.19.2 to 4.21.1", "updatedAt": "2026-11-20T08:03:30Z",
        "url": "https://github.com/octo-org/shop/pull/417"},
   ]) + "\n", 0, doc("gh needs a GitHub login; its failure fixture is real"),
   ["#418 Fix cart total rounding [OPEN] {bug} (dana, updated 2026-11-21)", "checks: 1 of 2 failing [test (ubuntu-latest)=failure, lint=success]",
    "#417 Bump express from 4.19.2 to 4.21.1", "https://github.com/octo-org/shop/pull/418"],
   ['"__typename"', '"detailsUrl"'])

RUN_LOG_ROWS = [
    ("test", "Set up job", "Current runner version: '2.321.0'"),
    ("test", "Set up job", "Operating System"),
    ("test", "Set up job", "  Ubuntu"),
    ("test", "Set up job", "  24.04.1"),
    ("test", "Set up job", "Runner Image Provisioner"),
    ("test", "Set up job", "Secret source: Actions"),
    ("test", "Set up job", "Prepare workflow directory"),
    ("test", "Set up job", "Prepare all required actions"),
    ("test", "Set up job", "Getting action download info"),
    ("test", "Set up job", "Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)"),
    ("test", "Set up job", "Download action repository 'actions/setup-node@v4' (SHA:39370e3970a6d050c480ffad4ff0ed4d3fdee5af)"),
    ("test", "Set up job", "Complete job name: test"),
    ("test", "Run actions/checkout@v4", "##[group]Run actions/checkout@v4"),
    ("test", "Run actions/checkout@v4", "with:"),
    ("test", "Run actions/checkout@v4", "  repository: octo-org/shop"),
    ("test", "Run actions/checkout@v4", "##[endgroup]"),
    ("test", "Run actions/checkout@v4", "Syncing repository: octo-org/shop"),
    ("test", "Run actions/checkout@v4", "##[group]Getting Git version info"),
    ("test", "Run actions/checkout@v4", "Working directory is '/home/runner/work/shop/shop'"),
    ("test", "Run actions/checkout@v4", "[command]/usr/bin/git version"),
    ("test", "Run actions/checkout@v4", "git version 2.47.1"),
    ("test", "Run actions/checkout@v4", "##[endgroup]"),
    ("test", "Run actions/checkout@v4", "[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +3f2a9c1d:refs/remotes/pull/418/merge"),
    ("test", "Run actions/checkout@v4", "HEAD is now at 3f2a9c1 Merge 8be1f0a into 77c0d12"),
    ("test", "Run actions/setup-node@v4", "##[group]Run actions/setup-node@v4"),
    ("test", "Run actions/setup-node@v4", "with:"),
    ("test", "Run actions/setup-node@v4", "  node-version: 22"),
    ("test", "Run actions/setup-node@v4", "##[endgroup]"),
    ("test", "Run actions/setup-node@v4", "Found in cache @ /opt/hostedtoolcache/node/22.11.0/x64"),
    ("test", "Run actions/setup-node@v4", "Environment details"),
    ("test", "Run actions/setup-node@v4", "  node: v22.11.0"),
    ("test", "Run actions/setup-node@v4", "  npm: 10.9.0"),
    ("test", "Run npm ci", "##[group]Run npm ci"),
    ("test", "Run npm ci", "npm ci"),
    ("test", "Run npm ci", "shell: /usr/bin/bash -e {0}"),
    ("test", "Run npm ci", "##[endgroup]"),
    ("test", "Run npm ci", "added 312 packages, and audited 313 packages in 6s"),
    ("test", "Run npm ci", "found 0 vulnerabilities"),
    ("test", "Run npm test", "##[group]Run npm test"),
    ("test", "Run npm test", "npm test"),
    ("test", "Run npm test", "shell: /usr/bin/bash -e {0}"),
    ("test", "Run npm test", "##[endgroup]"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", "> shop@2.3.0 test"),
    ("test", "Run npm test", "> vitest run"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", " RUN  v2.1.5 /home/runner/work/shop/shop"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", " ✓ src/catalog.test.ts (12 tests) 41ms"),
    ("test", "Run npm test", " ✓ src/orders.test.ts (9 tests) 37ms"),
    ("test", "Run npm test", " ❯ src/cart.test.ts (8 tests | 1 failed) 29ms"),
    ("test", "Run npm test", "   × cart total > rounds to two decimals 6ms"),
    ("test", "Run npm test", "     → expected 10.005 to be 10.01 // Object.is equality"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", " FAIL  src/cart.test.ts > cart total > rounds to two decimals"),
    ("test", "Run npm test", "AssertionError: expected 10.005 to be 10.01 // Object.is equality"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", "- Expected"),
    ("test", "Run npm test", "+ Received"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", "- 10.01"),
    ("test", "Run npm test", "+ 10.005"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", " ❯ src/cart.test.ts:27:34"),
    ("test", "Run npm test", ""),
    ("test", "Run npm test", " Test Files  1 failed | 2 passed (3)"),
    ("test", "Run npm test", "      Tests  1 failed | 28 passed (29)"),
    ("test", "Run npm test", "##[error]Process completed with exit code 1."),
    ("test", "Post Run actions/checkout@v4", "Post job cleanup."),
    ("test", "Post Run actions/checkout@v4", "[command]/usr/bin/git version"),
    ("test", "Post Run actions/checkout@v4", "git version 2.47.1"),
    ("test", "Complete job", "Cleaning up orphan processes"),
]


def run_log(rows):
    lines = []
    for i, (job, step, text) in enumerate(rows):
        s = 3 + i
        lines.append(f"{job}\t{step}\t2026-11-21T10:0{s // 60}:{s % 60:02d}.{1000000 + i * 7919:07d}Z {text}".rstrip() if text else
                     f"{job}\t{step}\t2026-11-21T10:0{s // 60}:{s % 60:02d}.{1000000 + i * 7919:07d}Z")
    return "\n".join(lines) + "\n"


fx("cloud/gh-run-log", "failed-vitest", "gh run view 11893412 --log -R octo-org/shop", run_log(RUN_LOG_ROWS), 0,
   doc("gh needs a GitHub login; the job<TAB>step<TAB>timestamp line format is gh's --log format; its not-logged-in fixture is real"),
   ["== test / Run npm test ==", "FAIL  src/cart.test.ts > cart total > rounds to two decimals",
    "AssertionError: expected 10.005 to be 10.01", "src/cart.test.ts:27:34", "Tests  1 failed | 28 passed (29)",
    "##[error]Process completed with exit code 1.", "1 failing step"],
   ["2026-11-21T10:0", "##[group]", "Download action repository", "Current runner version"])

fx("cloud/gh-pr-checks", "all-passing", "gh pr checks 417",
   "lint\tpass\t1m58s\thttps://github.com/octo-org/shop/actions/runs/11893001/job/33112001\t\n"
   "test (ubuntu-latest)\tpass\t4m12s\thttps://github.com/octo-org/shop/actions/runs/11893001/job/33112002\t\n"
   "test (macos-latest)\tpass\t5m40s\thttps://github.com/octo-org/shop/actions/runs/11893001/job/33112003\t\n"
   "build\tpass\t2m03s\thttps://github.com/octo-org/shop/actions/runs/11893001/job/33112004\t\n"
   "deploy-preview\tskipping\t0\thttps://github.com/octo-org/shop/actions/runs/11893001/job/33112005\t\n"
   "codecov/patch\tpass\t0\thttps://app.codecov.io/gh/octo-org/shop/pull/417\t91.30% of diff hit (target 80.00%)\n",
   0, doc("gh needs a GitHub login; non-terminal gh pr checks prints name<TAB>status<TAB>elapsed<TAB>link<TAB>description"),
   ["passed (5): lint, test (ubuntu-latest), test (macos-latest), build, codecov/patch", "skipped (1): deploy-preview", "5 passing check"])
fx("cloud/gh-pr-checks", "some-failing", "gh pr checks 418",
   "test (ubuntu-latest)\tfail\t3m51s\thttps://github.com/octo-org/shop/actions/runs/11893412/job/33114410\t\n"
   "e2e\tpending\t0\thttps://github.com/octo-org/shop/actions/runs/11893412/job/33114412\t\n"
   "lint\tpass\t1m44s\thttps://github.com/octo-org/shop/actions/runs/11893412/job/33114409\t\n"
   "build\tpass\t2m10s\thttps://github.com/octo-org/shop/actions/runs/11893412/job/33114411\t\n"
   "test (macos-latest)\tpass\t5m02s\thttps://github.com/octo-org/shop/actions/runs/11893412/job/33114413\t\n"
   "codecov/patch\tfail\t0\thttps://app.codecov.io/gh/octo-org/shop/pull/418\t62.50% of diff hit (target 80.00%)\n",
   1, doc("gh needs a GitHub login; exit 1 is gh's code for failing checks"),
   ["fail  test (ubuntu-latest)  3m51s  https://github.com/octo-org/shop/actions/runs/11893412/job/33114410",
    "pending  e2e  https://github.com/octo-org/shop/actions/runs/11893412/job/33114412",
    "fail  codecov/patch  https://app.codecov.io/gh/octo-org/shop/pull/418  62.50% of diff hit (target 80.00%)",
    "passed (3): lint, build, test (macos-latest)", "2 failing check"])

# ---------------------------------------------------------------- database
fx("database/mongosh", "find", "mongosh --quiet mongodb://127.0.0.1:27017/shop --eval 'db.orders.find({status: \"pending\"})'",
   """[
  {
    _id: ObjectId('6740a1f2c9e77a0c4d1b2a01'),
    customer: 'grace@example.com',
    total: Decimal128('5.00'),
    status: 'pending',
    createdAt: ISODate('2026-11-20T14:03:11.000Z')
  },
  {
    _id: ObjectId('6740a1f2c9e77a0c4d1b2a07'),
    customer: 'margaret@example.com',
    total: Decimal128('61.40'),
    status: 'pending',
    createdAt: ISODate('2026-11-21T09:41:52.000Z')
  }
]
""", 0, doc("mongosh is installed but there is no MongoDB server here; its connection failures are real"),
   ["grace@example.com", "margaret@example.com", "Decimal128('61.40')"])

# ---------------------------------------------------------------- devops: docker
PS = """CONTAINER ID   IMAGE                COMMAND                  CREATED        STATUS                    PORTS                                       NAMES
4f2a9c1d8e7b   shop/api:1.5.0       "docker-entrypoint.s…"   2 hours ago    Up 2 hours (healthy)      0.0.0.0:3000->3000/tcp, :::3000->3000/tcp   shop-api-1
9b8e7d6c5a43   shop/worker:1.5.0    "docker-entrypoint.s…"   2 hours ago    Restarting (1) 8 seconds ago                                          shop-worker-1
c3d2e1f0a9b8   postgres:16-alpine   "docker-entrypoint.s…"   2 hours ago    Up 2 hours (healthy)      5432/tcp                                    shop-db-1
7a6b5c4d3e2f   redis:7-alpine       "docker-entrypoint.s…"   2 hours ago    Up 2 hours                6379/tcp                                    shop-redis-1
1e2d3c4b5a69   nginx:1.27-alpine    "/docker-entrypoint.…"   2 hours ago    Up 2 hours                0.0.0.0:8080->80/tcp, :::8080->80/tcp       shop-proxy-1
"""
fx("devops/docker-ps", "running", "docker ps", PS, 0, doc("there is no docker engine here; the client's no-daemon failure is real"),
   ["shop-api-1", "Restarting (1) 8 seconds ago", "0.0.0.0:3000->3000/tcp", "shop-proxy-1", "9b8e7d6c5a43", "5 container"])

fx("devops/docker-images", "list", "docker images",
   """REPOSITORY     TAG           IMAGE ID       CREATED        SIZE
shop/api       1.5.0         3f2a9c1d8e7b   2 hours ago    231MB
shop/api       1.4.0         8be1f0a77c0d   3 days ago     229MB
shop/worker    1.5.0         5c4b3a2d1e0f   2 hours ago    198MB
postgres       16-alpine     b1a2c3d4e5f6   2 weeks ago    271MB
redis          7-alpine      d9e8f7a6b5c4   3 weeks ago    41.2MB
nginx          1.27-alpine   0a1b2c3d4e5f   4 weeks ago    47.9MB
<none>         <none>        77c0d12e3f4a   5 days ago     229MB
""", 0, doc("there is no docker engine here"),
   ["shop/api       1.4.0", "8be1f0a77c0d", "<none>", "41.2MB", "7 image"])

fx("devops/docker-logs", "api", "docker logs shop-api-1", logapp("plain", 300), 0,
   LOG_ABOUT.format(mode="plain", n=300, tool="docker logs", what="docker engine"),
   ["api listening on :3000", "ERROR redis: connect ECONNREFUSED 10.0.3.7:6379 (retry in 1000ms)",
    "TypeError: Cannot read properties of undefined (reading 'total')", "at computeCart (/app/src/cart.js:42:18)",
    "WARN  slow query on orders: 990ms", "DeprecationWarning: Buffer() is deprecated", "shutdown complete"])

compose_lines = []
api = logapp("plain", 220).splitlines()
for i, l in enumerate(api):
    compose_lines.append(f"api-1     | {l}")
    if i % 40 == 5:
        compose_lines.append("db-1      | 2026-11-22 09:00:%02d.118 UTC [27] LOG:  checkpoint starting: time" % (i % 60))
    if i == 60:
        compose_lines.append("db-1      | 2026-11-22 09:00:31.402 UTC [88] ERROR:  duplicate key value violates unique constraint \"orders_pkey\"")
        compose_lines.append("db-1      | 2026-11-22 09:00:31.402 UTC [88] DETAIL:  Key (id)=(104) already exists.")
fx("devops/docker-compose-logs", "stack", "docker compose logs --no-color", "\n".join(compose_lines) + "\n", 0,
   LOG_ABOUT.format(mode="plain", n=220, tool="docker compose logs (which prefixes each line with the service)", what="docker engine") + "; the db-1 lines follow PostgreSQL's log format",
   ["api-1     | ", "ERROR:  duplicate key value violates unique constraint \"orders_pkey\"", "Key (id)=(104) already exists.",
    "redis: connect ECONNREFUSED", "shutdown complete"])

fx("devops/docker-compose", "ps", "docker compose ps",
   """NAME            IMAGE                COMMAND                  SERVICE   CREATED        STATUS                          PORTS
shop-api-1      shop/api:1.5.0       "docker-entrypoint.s…"   api       2 hours ago    Up 2 hours (healthy)            0.0.0.0:3000->3000/tcp
shop-db-1       postgres:16-alpine   "docker-entrypoint.s…"   db        2 hours ago    Up 2 hours (healthy)            5432/tcp
shop-redis-1    redis:7-alpine       "docker-entrypoint.s…"   redis     2 hours ago    Up 2 hours                      6379/tcp
shop-worker-1   shop/worker:1.5.0    "docker-entrypoint.s…"   worker    2 hours ago    Restarting (1) 5 seconds ago
""", 0, doc("there is no docker engine here"),
   ["shop-api-1", "shop-worker-1", "Restarting (1) 5 seconds ago", "0.0.0.0:3000->3000/tcp", "4 service"])
fx("devops/docker-compose", "up-failed", "docker compose up -d",
   """ Network shop_default  Creating
 Network shop_default  Created
 Volume "shop_pgdata"  Creating
 Volume "shop_pgdata"  Created
 Container shop-db-1  Creating
 Container shop-redis-1  Creating
 Container shop-redis-1  Created
 Container shop-db-1  Created
 Container shop-api-1  Creating
 Container shop-api-1  Created
 Container shop-db-1  Starting
 Container shop-redis-1  Starting
 Container shop-redis-1  Started
 Container shop-db-1  Started
 Container shop-db-1  Waiting
 Container shop-db-1  Error
dependency failed to start: container shop-db-1 is unhealthy
""", 1, doc("there is no docker engine here"),
   ["Container shop-db-1  Error", "dependency failed to start: container shop-db-1 is unhealthy"])

fx("devops/docker-build", "ok", "docker build -t shop/api:1.5.0 .",
   """#0 building with "default" instance using docker driver

#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 298B done
#1 DONE 0.0s

#2 [internal] load metadata for docker.io/library/node:22-slim
#2 DONE 0.9s

#3 [internal] load .dockerignore
#3 transferring context: 84B done
#3 DONE 0.0s

#4 [1/5] FROM docker.io/library/node:22-slim@sha256:2d9f5a3e1b7c4d8e0f6a9b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6
#4 resolve docker.io/library/node:22-slim@sha256:2d9f5a3e1b7c4d8e0f6a9b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6 0.0s done
#4 sha256:a1b2c3d4e5f60718 0B / 28.23MB 0.2s
#4 sha256:a1b2c3d4e5f60718 12.58MB / 28.23MB 0.5s
#4 sha256:a1b2c3d4e5f60718 28.23MB / 28.23MB 0.8s done
#4 extracting sha256:a1b2c3d4e5f60718 1.1s done
#4 DONE 2.3s

#5 [internal] load build context
#5 transferring context: 412.77kB 0.1s done
#5 DONE 0.1s

#6 [2/5] WORKDIR /app
#6 DONE 0.1s

#7 [3/5] COPY package*.json ./
#7 DONE 0.0s

#8 [4/5] RUN npm ci --omit=dev
#8 4.102 npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.
#8 6.857
#8 6.857 added 214 packages, and audited 215 packages in 6s
#8 6.858 found 0 vulnerabilities
#8 DONE 7.2s

#9 [5/5] COPY . .
#9 DONE 0.1s

#10 exporting to image
#10 exporting layers 0.4s done
#10 writing image sha256:3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19 done
#10 naming to docker.io/shop/api:1.5.0 done
#10 DONE 0.5s
""", 0, doc("there is no docker engine here (BuildKit plain progress, as when not on a terminal); the client's no-daemon failure is real"),
   ["[4/5] RUN npm ci --omit=dev", "npm warn deprecated inflight@1.0.6", "added 214 packages", "5 step", "[5/5] COPY . ."],
   ["sha256:a1b2c3d4e5f60718 12.58MB"])
fx("devops/docker-build", "npm-failed", "docker build -t shop/api:1.5.0 .",
   """#0 building with "default" instance using docker driver

#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 298B done
#1 DONE 0.0s

#2 [internal] load metadata for docker.io/library/node:22-slim
#2 DONE 0.7s

#3 [1/5] FROM docker.io/library/node:22-slim@sha256:2d9f5a3e1b7c4d8e0f6a9b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6
#3 CACHED

#4 [2/5] WORKDIR /app
#4 CACHED

#5 [3/5] COPY package*.json ./
#5 DONE 0.0s

#6 [4/5] RUN npm ci --omit=dev
#6 1.902 npm error code EUSAGE
#6 1.903 npm error
#6 1.903 npm error `npm ci` can only install packages when your package.json and package-lock.json are in sync. Please update your lock file with `npm install` before continuing.
#6 1.903 npm error
#6 1.903 npm error Missing: zod@3.23.8 from lock file
#6 1.912 npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-22T09_12_01_123Z-debug-0.log
#6 ERROR: process "/bin/sh -c npm ci --omit=dev" did not complete successfully: exit code: 1
------
 > [4/5] RUN npm ci --omit=dev:
1.903 npm error
1.903 npm error Missing: zod@3.23.8 from lock file
1.903 npm error
1.912 npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-22T09_12_01_123Z-debug-0.log
------
Dockerfile:4
--------------------
   2 |     WORKDIR /app
   3 |     COPY package*.json ./
   4 | >>> RUN npm ci --omit=dev
   5 |     COPY . .
   6 |
--------------------
ERROR: failed to solve: process "/bin/sh -c npm ci --omit=dev" did not complete successfully: exit code: 1
""", 1, doc("there is no docker engine here"),
   ["[4/5] RUN npm ci --omit=dev", "Missing: zod@3.23.8 from lock file", ">>> RUN npm ci --omit=dev",
    "ERROR: failed to solve: process \"/bin/sh -c npm ci --omit=dev\" did not complete successfully: exit code: 1", "step"])

# ---------------------------------------------------------------- devops: helm
fx("devops/helm", "list", "helm list -A",
   "NAME         \tNAMESPACE \tREVISION\tUPDATED                                \tSTATUS  \tCHART              \tAPP VERSION\n"
   "shop-api     \tshop      \t42      \t2026-11-21 17:02:11.123456 +0000 UTC   \tdeployed\tshop-api-2.3.0     \t1.5.0\n"
   "shop-worker  \tshop      \t17      \t2026-11-21 17:05:40.654321 +0000 UTC   \tfailed  \tshop-worker-2.3.0  \t1.5.0\n"
   "ingress-nginx\tingress   \t3       \t2026-10-02 08:11:09.000111 +0000 UTC   \tdeployed\tingress-nginx-4.11.3\t1.11.3\n", 0,
   doc("helm needs a Kubernetes cluster"), ["shop-worker", "failed", "ingress-nginx-4.11.3", "shop-api-2.3.0"])
fx("devops/helm", "template-error", "helm template shop-api ./charts/shop-api",
   """---
# Source: shop-api/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop-api
  labels:
    app.kubernetes.io/name: shop-api
    app.kubernetes.io/instance: shop-api
---
# Source: shop-api/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-api
Error: YAML parse error on shop-api/templates/service.yaml: error converting YAML to JSON: yaml: line 12: did not find expected key

Use --debug flag to render out invalid YAML
""", 1, doc("helm is not installable here from the allowed registries"),
   ["Error: YAML parse error on shop-api/templates/service.yaml", "yaml: line 12: did not find expected key", "kind: Deployment"])

# ---------------------------------------------------------------- devops: kubectl
pods = [("NAME", "READY", "STATUS", "RESTARTS", "AGE")]
for suffix in ("x2x8q", "k9m2p", "c7d4z"):
    pods.append((f"shop-api-7d9f8b6c5-{suffix}", "1/1", "Running", "0", "2d3h"))
for name in ("b5q8r", "h2j6t", "w3e9y", "p8l1k", "f6g4n", "v1c5x", "a9s8d", "q1w2e", "z7x6c", "r4t5y", "u8i9o", "g3h4j"):
    pods.append((f"shop-web-5f6c7d8b9-{name}", "1/1", "Running", "0", "2d3h"))
pods.append(("shop-worker-6b7c8d9e0-m4n7q", "0/1", "CrashLoopBackOff", "23 (2m ago)", "2d3h"))
pods.append(("shop-migrate-29017734-8zt5v", "0/1", "Completed", "0", "14h"))
for i in range(3):
    pods.append((f"shop-db-{i}", "1/1", "Running", "0", "9d"))
pods.append(("shop-search-0", "0/1", "Pending", "0", "3m12s"))
w = [max(len(r[c]) for r in pods) + 3 for c in range(4)]
pods = ["".join(r[c].ljust(w[c]) for c in range(4)) + r[4] for r in pods]
fx("devops/kubectl-get", "pods", "kubectl get pods -n shop", "\n".join(pods) + "\n", 0,
   doc("there is no Kubernetes cluster here; kubectl's connection-refused failure is real"),
   ["shop-worker-6b7c8d9e0-m4n7q", "CrashLoopBackOff", "23 (2m ago)", "shop-migrate-29017734-8zt5v", "Completed", "shop-web-5f6c7d8b9-g3h4j", "shop-db-2", "shop-search-0", "Pending", "21 resource"])
fx("devops/kubectl-get", "all-namespaces", "kubectl get deploy -A",
   """NAMESPACE       NAME                      READY   UP-TO-DATE   AVAILABLE   AGE
ingress         ingress-nginx-controller  1/1     1            1           51d
kube-system     coredns                   2/2     2            2           51d
kube-system     metrics-server            1/1     1            1           51d
monitoring      grafana                   1/1     1            1           30d
monitoring      prometheus-operator       1/1     1            1           30d
shop            shop-api                  3/3     3            3           9d
shop            shop-web                  6/6     6            6           9d
shop            shop-worker               0/1     1            0           9d
""", 0, doc("there is no Kubernetes cluster here"),
   ["ingress-nginx-controller", "shop-worker               0/1", "coredns", "8 resource"])

fx("devops/kubectl-describe", "crashloop", "kubectl describe pod shop-worker-6b7c8d9e0-m4n7q -n shop",
   """Name:             shop-worker-6b7c8d9e0-m4n7q
Namespace:        shop
Priority:         0
Service Account:  shop-worker
Node:             gke-shop-pool-1-8f2c1a3b-x9q2/10.154.0.12
Start Time:       Wed, 20 Nov 2026 06:11:02 +0000
Labels:           app.kubernetes.io/name=shop-worker
                  pod-template-hash=6b7c8d9e0
Annotations:      checksum/config: 5f8e2b1c9a7d3e6f4b2a1c8d9e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f
                  kubectl.kubernetes.io/restartedAt: 2026-11-20T06:10:58Z
                  prometheus.io/port: 9464
                  prometheus.io/scrape: true
Status:           Running
IP:               10.8.2.17
IPs:
  IP:           10.8.2.17
Controlled By:  ReplicaSet/shop-worker-6b7c8d9e0
Containers:
  worker:
    Container ID:   containerd://9a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5
    Image:          shop/worker:1.5.0
    Image ID:       docker.io/shop/worker@sha256:5c4b3a2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b
    Port:           9464/TCP
    Host Port:      0/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      Fri, 22 Nov 2026 08:58:10 +0000
      Finished:     Fri, 22 Nov 2026 08:58:11 +0000
    Ready:          False
    Restart Count:  23
    Limits:
      memory:  512Mi
    Requests:
      cpu:      100m
      memory:   256Mi
    Liveness:   http-get http://:9464/healthz delay=10s timeout=1s period=10s #success=1 #failure=3
    Environment:
      NODE_ENV:      production
      QUEUE_URL:     <set to the key 'url' in secret 'shop-queue'>  Optional: false
    Mounts:
      /app/config from config (ro)
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-7q2xk (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True
  Initialized                 True
  Ready                       False
  ContainersReady             False
  PodScheduled                True
Volumes:
  config:
    Type:      ConfigMap (a volume populated by a ConfigMap)
    Name:      shop-worker-config
    Optional:  false
  kube-api-access-7q2xk:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    ConfigMapOptional:       <nil>
    DownwardAPI:             true
QoS Class:                   Burstable
Node-Selectors:              <none>
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason     Age                   From     Message
  ----     ------     ----                  ----     -------
  Normal   Pulled     12m (x23 over 2d2h)   kubelet  Container image "shop/worker:1.5.0" already present on machine
  Warning  BackOff    2m4s (x540 over 2d2h) kubelet  Back-off restarting failed container worker in pod shop-worker-6b7c8d9e0-m4n7q_shop(4f1c2a3b-5d6e-7f80-91a2-b3c4d5e6f708)
""", 0, doc("there is no Kubernetes cluster here; kubectl's connection-refused failure is real"),
   ["Status:           Running", "Reason:       CrashLoopBackOff", "Exit Code:    1", "Restart Count:  23", "Ready                       False",
    "Back-off restarting failed container worker", "QUEUE_URL", "Volumes:  [10 lines hidden]", "1 warning event"],
   ["kube-api-access-7q2xk:", "prometheus.io/scrape", "TokenExpirationSeconds"])

fx("devops/kubectl-logs", "json-lines", "kubectl logs deploy/shop-api -n shop", logapp("json", 210), 0,
   LOG_ABOUT.format(mode="json", n=210, tool="kubectl logs", what="Kubernetes cluster"),
   ["api listening on :3000", "redis: connect ECONNREFUSED 10.0.3.7:6379", "unhandled rejection: TypeError",
    "at computeCart (/app/src/cart.js:42:18)", "slow query on orders: 990ms", "shutdown complete"])

fx("devops/kubectl-apply", "manifests", "kubectl apply -f k8s/",
   """namespace/shop unchanged
serviceaccount/shop-api unchanged
serviceaccount/shop-worker unchanged
configmap/shop-api-config configured
configmap/shop-worker-config unchanged
secret/shop-queue unchanged
service/shop-api unchanged
service/shop-web unchanged
deployment.apps/shop-api configured
deployment.apps/shop-web unchanged
deployment.apps/shop-worker configured
cronjob.batch/shop-migrate unchanged
horizontalpodautoscaler.autoscaling/shop-api created
ingress.networking.k8s.io/shop unchanged
""", 0, doc("there is no Kubernetes cluster here; kubectl's connection-refused failure is real"),
   ["configmap/shop-api-config configured", "deployment.apps/shop-api configured", "deployment.apps/shop-worker configured",
    "horizontalpodautoscaler.autoscaling/shop-api created", "10 unchanged resource"],
   ["service/shop-web unchanged"])
fx("devops/kubectl-apply", "invalid", "kubectl apply -f k8s/",
   """namespace/shop unchanged
configmap/shop-api-config unchanged
service/shop-api unchanged
The Deployment "shop-worker" is invalid: spec.template.spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 512Mi
Error from server (BadRequest): error when creating "k8s/hpa.yaml": HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.metrics[0].resource.targetAverageUtilization"
""", 1, doc("there is no Kubernetes cluster here"),
   ["The Deployment \"shop-worker\" is invalid", "must be less than or equal to memory limit of 512Mi", "unknown field \"spec.metrics[0].resource.targetAverageUtilization\""])

roll = [f'Waiting for deployment "shop-api" rollout to finish: {i} out of 3 new replicas have been updated...' for i in (0, 1, 1, 2, 2)]
roll += ['Waiting for deployment "shop-api" rollout to finish: 1 old replicas are pending termination...'] * 3
roll += ['deployment "shop-api" successfully rolled out']
fx("devops/kubectl-rollout", "status", "kubectl rollout status deploy/shop-api -n shop", "\n".join(roll) + "\n", 0,
   doc("there is no Kubernetes cluster here; kubectl's connection-refused failure is real"),
   ['deployment "shop-api" successfully rolled out', "0 out of 3 new replicas", "1 old replicas are pending termination"])

# ---------------------------------------------------------------- devops: pulumi, terragrunt
fx("devops/pulumi", "up", "pulumi up --yes",
   """Updating (prod)

View in Browser (Ctrl+O): https://app.pulumi.com/octo-org/shop-infra/prod/updates/57

     Type                      Name                Status              Info
     pulumi:pulumi:Stack       shop-infra-prod
 ~   ├─ aws:ecs:TaskDefinition  api-task           updated (2s)        [diff: ~containerDefinitions]
 +-  ├─ aws:ecs:Service         api-service        replaced (31s)      [diff: ~taskDefinition]
 +   ├─ aws:s3:Bucket           exports            created (3s)
 -   └─ aws:sqs:Queue           legacy-jobs        deleted (1s)

Outputs:
  ~ apiUrl   : "http://shop-api-1234.eu-west-1.elb.amazonaws.com" => "http://shop-api-5678.eu-west-1.elb.amazonaws.com"
    bucketName: "shop-exports-4f2a9c1"

Resources:
    + 1 created
    ~ 1 updated
    - 1 deleted
    +-1 replaced
    4 changes. 12 unchanged

Duration: 48s
""", 0, doc("pulumi needs a backend and a cloud account"),
   ["api-task", "updated (2s)", "api-service        replaced (31s)", "exports            created (3s)", "legacy-jobs        deleted (1s)",
    "apiUrl", "4 changes. 12 unchanged", "Duration: 48s"])
fx("devops/pulumi", "up-failed", "pulumi up --yes",
   """Updating (prod)

View in Browser (Ctrl+O): https://app.pulumi.com/octo-org/shop-infra/prod/updates/58

     Type                      Name                Status                  Info
     pulumi:pulumi:Stack       shop-infra-prod     **failed**              1 error
 +   └─ aws:s3:Bucket           exports-eu         **creating failed**     1 error

Diagnostics:
  aws:s3:Bucket (exports-eu):
    error: 1 error occurred:
    	* creating S3 Bucket (shop-exports): BucketAlreadyExists: The requested bucket name is not available.
    	status code: 409, request id: 4F2A9C1D8E7B6A5F

  pulumi:pulumi:Stack (shop-infra-prod):
    error: update failed

Resources:
    16 unchanged

Duration: 9s
""", 255, doc("pulumi needs a backend and a cloud account"),
   ["Diagnostics:", "aws:s3:Bucket (exports-eu):", "BucketAlreadyExists: The requested bucket name is not available.", "error: update failed", "16 unchanged"])

tg = []
for mod, adds in (("vpc", 0), ("db", 1), ("api", 2)):
    tg.append(f"09:12:0{len(tg) % 10}.101 INFO   [live/prod/{mod}] Downloading Terraform configurations from git::ssh://git@github.com/octo-org/infra-modules.git?ref=v3.2.0 into ./.terragrunt-cache/x1")
    tg.append(f"09:12:0{len(tg) % 10}.320 STDOUT [live/prod/{mod}] terraform: aws_vpc.main: Refreshing state... [id=vpc-0a1b2c3d]")
    tg.append(f"09:12:0{len(tg) % 10}.322 STDOUT [live/prod/{mod}] terraform: aws_subnet.private[0]: Refreshing state... [id=subnet-11aa22bb]")
    tg.append(f"09:12:0{len(tg) % 10}.324 STDOUT [live/prod/{mod}] terraform: aws_subnet.private[1]: Refreshing state... [id=subnet-33cc44dd]")
    if adds:
        tg.append(f"09:12:0{len(tg) % 10}.500 STDOUT [live/prod/{mod}] terraform:   # aws_security_group_rule.{mod}_ingress will be created")
    tg.append(f"09:12:0{len(tg) % 10}.600 STDOUT [live/prod/{mod}] terraform: Plan: {adds} to add, 0 to change, 0 to destroy." if adds else
              f"09:12:0{len(tg) % 10}.600 STDOUT [live/prod/{mod}] terraform: No changes. Your infrastructure matches the configuration.")
fx("devops/terragrunt", "run-all-plan", "terragrunt run-all plan", "\n".join(tg) + "\n", 0,
   doc("terragrunt is not installable here from the allowed registries (log format of terragrunt 0.67+)"),
   ["[live/prod/api] terraform: Plan: 2 to add, 0 to change, 0 to destroy.", "aws_security_group_rule.db_ingress will be created",
    "[live/prod/vpc] terraform: No changes.", "3 planned additions"],
   ["Refreshing state"])

# ---------------------------------------------------------------- observability: htop
fx("observability/htop", "tree-snapshot", "htop -C",
   """    0[||||||||||                          23.4%]   Tasks: 61, 212 thr, 148 kthr; 2 running
    1[|||||                               11.0%]   Load average: 0.84 0.71 0.66
  Mem[||||||||||||||||||            7.21G/15.5G]   Uptime: 4 days, 02:18:40
  Swp[                                  0K/2.00G]

    PID USER       PRI  NI  VIRT   RES   SHR S  CPU% MEM%   TIME+  Command
   3210 dana        20   0 1740M  280M  112M S  23.4  1.8  3:54.23 node dist/server.js
   4121 postgres    20   0  214M 28.1M 26.0M S   2.1  0.2  0:41.10 postgres: checkpointer
   4122 postgres    20   0  213M 10.2M  8.9M S   0.0  0.1  0:02.01 postgres: background writer
   5010 redis       20   0 74.1M 12.3M  6.1M S   0.7  0.1  1:12.55 redis-server 127.0.0.1:6379
      1 root        20   0  166M 13.0M  8.4M S   0.0  0.1  0:03.12 /sbin/init
""", 0, doc("htop is an interactive screen program; this is its process table as shown on screen"),
   ["Tasks: 61", "Load average: 0.84 0.71 0.66", "node dist/server.js", "postgres: checkpointer", "redis-server 127.0.0.1:6379"])

# ---------------------------------------------------------------- service
jlines = []
for l in logapp("plain", 300).splitlines():
    if l.startswith("    at "):
        jlines.append(f"Nov 22 09:00:29 web-1 shop-api[4121]: {l}")
        continue
    ts, rest = l.split(" ", 1)
    hh, mm, ss = ts[11:13], ts[14:16], ts[17:19]
    jlines.append(f"Nov 22 {hh}:{mm}:{ss} web-1 shop-api[4121]: {rest}")
jlines.insert(0, "Nov 22 09:00:00 web-1 systemd[1]: Started shop-api.service - Shop API.")
jlines.append("Nov 22 09:00:40 web-1 systemd[1]: Stopping shop-api.service - Shop API...")
jlines.append("Nov 22 09:00:40 web-1 systemd[1]: shop-api.service: Deactivated successfully.")
fx("service/journalctl", "unit", "journalctl -u shop-api.service --no-pager", "\n".join(jlines) + "\n", 0,
   "real output of scripts/fixture-setup/ops-logapp.js (plain, 300 requests) run with node, framed in journalctl's short format (there is no systemd journal in this container; its no-journal outputs are real)",
   ["Started shop-api.service", "redis: connect ECONNREFUSED 10.0.3.7:6379", "TypeError: Cannot read properties of undefined",
    "at computeCart (/app/src/cart.js:42:18)", "DeprecationWarning", "Deactivated successfully"])

fx("service/launchctl", "list", "launchctl list",
   "PID\tStatus\tLabel\n"
   "-\t0\tcom.apple.SafariHistoryServiceAgent\n"
   "412\t0\tcom.apple.Finder\n"
   "-\t78\tcom.example.shop-api\n"
   "991\t0\tcom.example.shop-worker\n"
   "-\t0\thomebrew.mxcl.postgresql@16\n"
   "1207\t0\thomebrew.mxcl.redis\n", 0,
   doc("launchctl is macOS-only"), ["com.example.shop-api", "78", "homebrew.mxcl.redis", "6 service"])
fx("service/launchctl", "no-such-service", "launchctl print gui/501/com.example.nosuch",
   "Could not find service \"com.example.nosuch\" in domain for user gui: 501\n", 113,
   doc("launchctl is macOS-only"), ["Could not find service \"com.example.nosuch\""])

fx("service/systemctl-status", "failed-unit", "systemctl status shop-worker.service",
   """× shop-worker.service - Shop queue worker
     Loaded: loaded (/etc/systemd/system/shop-worker.service; enabled; preset: enabled)
     Active: failed (Result: exit-code) since Fri 2026-11-22 08:58:11 UTC; 2min 3s ago
   Duration: 1.012s
    Process: 5120 ExecStart=/usr/bin/node /srv/shop/worker.js (code=exited, status=1/FAILURE)
   Main PID: 5120 (code=exited, status=1/FAILURE)
        CPU: 412ms

Nov 22 08:58:10 web-1 systemd[1]: Started shop-worker.service - Shop queue worker.
Nov 22 08:58:11 web-1 node[5120]: worker starting
Nov 22 08:58:11 web-1 node[5120]: Error: missing env var QUEUE_URL
Nov 22 08:58:11 web-1 node[5120]:     at Object.<anonymous> (/srv/shop/worker.js:2:7)
Nov 22 08:58:11 web-1 systemd[1]: shop-worker.service: Main process exited, code=exited, status=1/FAILURE
Nov 22 08:58:11 web-1 systemd[1]: shop-worker.service: Failed with result 'exit-code'.
""", 3, doc("there is no systemd in this container; its 'not booted with systemd' failure is real"),
   ["Active: failed (Result: exit-code)", "status=1/FAILURE", "Error: missing env var QUEUE_URL", "Failed with result 'exit-code'", "error"])
fx("service/systemctl-status", "running", "systemctl status shop-api.service",
   """● shop-api.service - Shop API
     Loaded: loaded (/etc/systemd/system/shop-api.service; enabled; preset: enabled)
     Active: active (running) since Wed 2026-11-20 06:11:02 UTC; 2 days ago
   Main PID: 4121 (node)
      Tasks: 11 (limit: 4657)
     Memory: 84.2M (peak: 96.0M)
        CPU: 5min 12.331s
     CGroup: /system.slice/shop-api.service
             └─4121 /usr/bin/node /srv/shop/server.js

Nov 22 08:59:58 web-1 node[4121]: GET /api/cart 200 12ms
Nov 22 08:59:59 web-1 node[4121]: GET /health 200 3ms
Nov 22 09:00:00 web-1 node[4121]: GET /api/orders 200 18ms
Nov 22 09:00:01 web-1 node[4121]: GET /api/products 200 9ms
Nov 22 09:00:02 web-1 node[4121]: warn: slow query on orders (612ms)
""", 0, doc("there is no systemd in this container"),
   ["Active: active (running)", "Main PID: 4121 (node)", "warn: slow query on orders (612ms)"])

# ---------------------------------------------------------------- openclaw
sess = {
    "sessionKey": "agent:dana:main",
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Deploy the cart fix to staging and tell me when it is green."}],
         "timestamp": 1795338000000, "__openclaw": {"id": "a1b2c3d4", "seq": 120}},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I should check CI first, then run the deploy workflow..."},
            {"type": "text", "text": "CI is green on #418. Starting the staging deploy."},
            {"type": "toolCall", "id": "call_01", "name": "exec", "arguments": {"command": "gh workflow run deploy.yml -f env=staging"}}],
         "api": "anthropic-messages", "provider": "anthropic", "model": "claude-x", "stopReason": "toolUse",
         "usage": {"input": 5120, "output": 211}, "timestamp": 1795338004000, "responseId": "msg_01ABCDEF",
         "__openclaw": {"id": "e5f6a7b8", "seq": 121}},
        {"role": "toolResult", "toolCallId": "call_01", "toolName": "exec",
         "content": [{"type": "text", "text": "✓ Created workflow_dispatch event for deploy.yml at main"}],
         "timestamp": 1795338006000, "__openclaw": {"id": "c9d0e1f2", "seq": 122}},
        {"role": "assistant", "content": [{"type": "text", "text": "Staging deploy started (run 11893520). I will report back when it finishes."}],
         "api": "anthropic-messages", "provider": "anthropic", "model": "claude-x", "stopReason": "stop",
         "timestamp": 1795338010000, "responseId": "msg_01GHIJKL", "__openclaw": {"id": "a3b4c5d6", "seq": 123}},
    ],
    "truncated": False, "droppedMessages": False, "contentTruncated": False, "contentRedacted": False, "bytes": 1912,
}
fx("openclaw/sessions-history", "deploy", None, json.dumps(sess, indent=2, ensure_ascii=False) + "\n", 0,
   "written from the OpenClaw sessions_history tool's result shape (a host tool, not a command that runs here); names are made up",
   ["sessionKey: agent:dana:main", "Deploy the cart fix to staging", "CI is green on #418", "gh workflow run deploy.yml",
    "toolName: exec", "Created workflow_dispatch event", "Staging deploy started (run 11893520)", "timestamp"],
   ["I should check CI first", "msg_01ABCDEF", "e5f6a7b8", "anthropic-messages"], tool="sessions_history")
fx("openclaw/sessions-history", "not-found", None,
   json.dumps({"error": "session not found", "sessionKey": "agent:dana:nosuch"}, indent=2) + "\n", 1,
   "written from the OpenClaw sessions_history tool's error shape (a host tool, not a command that runs here)",
   ["session not found", "agent:dana:nosuch"], tool="sessions_history")

fx("devops/terragrunt", "run-all-apply-failed", "terragrunt run-all apply --terragrunt-non-interactive",
   """09:20:01.104 INFO   The runner at . will be processed in the following order for command apply:
Group 1
- Module ./live/prod/vpc

Group 2
- Module ./live/prod/db
- Module ./live/prod/api

09:20:03.551 STDOUT [live/prod/vpc] terraform: aws_vpc.main: Refreshing state... [id=vpc-0a1b2c3d]
09:20:04.018 STDOUT [live/prod/vpc] terraform: No changes. Your infrastructure matches the configuration.
09:20:04.019 STDOUT [live/prod/vpc] terraform: Apply complete! Resources: 0 added, 0 changed, 0 destroyed.
09:20:06.240 STDOUT [live/prod/db] terraform: aws_db_instance.main: Modifying... [id=shop-prod]
09:20:16.241 STDOUT [live/prod/db] terraform: aws_db_instance.main: Still modifying... [id=shop-prod, 10s elapsed]
09:20:26.242 STDOUT [live/prod/db] terraform: aws_db_instance.main: Still modifying... [id=shop-prod, 20s elapsed]
09:20:29.880 STDERR [live/prod/db] terraform: ╷
09:20:29.880 STDERR [live/prod/db] terraform: │ Error: updating RDS DB Instance (shop-prod): InvalidParameterCombination: Cannot upgrade postgres from 16.4 to 15.8
09:20:29.880 STDERR [live/prod/db] terraform: │
09:20:29.880 STDERR [live/prod/db] terraform: │   with aws_db_instance.main,
09:20:29.880 STDERR [live/prod/db] terraform: │   on main.tf line 12, in resource "aws_db_instance" "main":
09:20:29.880 STDERR [live/prod/db] terraform: │   12: resource "aws_db_instance" "main" {
09:20:29.880 STDERR [live/prod/db] terraform: ╵
09:20:29.901 ERROR  [live/prod/db] terraform invocation failed in ./live/prod/db/.terragrunt-cache/x1
09:20:29.902 ERROR  [live/prod/api] Dependency ./live/prod/db of module ./live/prod/api just finished with an error. Module ./live/prod/api will have to return an error too.
09:20:29.903 ERROR  error occurred:
09:20:29.903 ERROR  Cannot process module Module ./live/prod/api (excluded: false, assume applied: false, dependencies: [./live/prod/db]) because one of its dependencies, Module ./live/prod/db (excluded: false, assume applied: false, dependencies: [./live/prod/vpc]), finished with an error: exit status 1
""", 1, doc("terragrunt is not installable here from the allowed registries (log format of terragrunt 0.67+)"),
   ["Error: updating RDS DB Instance (shop-prod): InvalidParameterCombination: Cannot upgrade postgres from 16.4 to 15.8",
    "on main.tf line 12", "terraform invocation failed in ./live/prod/db", "Module ./live/prod/api will have to return an error too",
    "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."],
   ["Still modifying"])

fx("devops/docker-pull", "postgres", "docker pull postgres:16-alpine",
   """16-alpine: Pulling from library/postgres
43c4264eed91: Already exists
8f15c1d5e4a1: Pulling fs layer
5d9b6e3f1a2c: Pulling fs layer
0c4a7f4e9d1b: Pulling fs layer
a7e2d0c1b3f4: Pulling fs layer
5d9b6e3f1a2c: Waiting
0c4a7f4e9d1b: Waiting
a7e2d0c1b3f4: Waiting
8f15c1d5e4a1: Downloading  1.049kB/1.049kB
8f15c1d5e4a1: Verifying Checksum
8f15c1d5e4a1: Download complete
8f15c1d5e4a1: Extracting  1.049kB/1.049kB
8f15c1d5e4a1: Pull complete
5d9b6e3f1a2c: Downloading  12.58MB/104.2MB
5d9b6e3f1a2c: Downloading  58.72MB/104.2MB
5d9b6e3f1a2c: Downloading  104.2MB/104.2MB
5d9b6e3f1a2c: Verifying Checksum
5d9b6e3f1a2c: Download complete
0c4a7f4e9d1b: Downloading  9.21kB/9.21kB
0c4a7f4e9d1b: Download complete
a7e2d0c1b3f4: Download complete
5d9b6e3f1a2c: Extracting  32.77kB/104.2MB
5d9b6e3f1a2c: Extracting  55.38MB/104.2MB
5d9b6e3f1a2c: Extracting  104.2MB/104.2MB
5d9b6e3f1a2c: Pull complete
0c4a7f4e9d1b: Extracting  9.21kB/9.21kB
0c4a7f4e9d1b: Pull complete
a7e2d0c1b3f4: Extracting     162B/162B
a7e2d0c1b3f4: Pull complete
Digest: sha256:5f8e2b1c9a7d3e6f4b2a1c8d9e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f
Status: Downloaded newer image for postgres:16-alpine
docker.io/library/postgres:16-alpine
""", 0, doc("there is no docker engine here; the client's no-daemon failure is real"),
   ["16-alpine: Pulling from library/postgres", "Digest: sha256:5f8e2b1c9a7d3e6f4b2a1c8d9e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f",
    "Status: Downloaded newer image for postgres:16-alpine", "docker.io/library/postgres:16-alpine", "5 layer"],
   ["Pulling fs layer", "Downloading"])

buckets = {"Buckets": [{"Name": f"shop-{n}", "CreationDate": f"2026-{m:02d}-0{d}T10:0{d}:00+00:00"}
                       for n, m, d in (("exports", 11, 1), ("logs", 10, 2), ("assets", 9, 3), ("backups-eu", 8, 4),
                                       ("backups-us", 8, 5), ("terraform-state", 3, 6), ("tmp-uploads", 11, 7))],
           "Owner": {"DisplayName": "octo-org", "ID": "4f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19"}}
fx("cloud/aws", "list-buckets", "aws s3api list-buckets", json.dumps(buckets, indent=4) + "\n", 0,
   doc("aws needs credentials; its no-credentials failure is real; default JSON output, 4-space indent"),
   ["Buckets (7):", '{"Name":"shop-terraform-state","CreationDate":"2026-03-06T10:06:00+00:00"}', '"DisplayName":"octo-org"', "7 record"])

prview = {"author": {"login": "dana"}, "body": "Cart totals were summed as floats and rounded per line.\n\nThis switches to integer cents and rounds once.\n\nFixes #402", "comments": [
    {"author": {"login": "lee"}, "authorAssociation": "MEMBER", "body": "Does this change the API response?\nThe mobile app parses `total` as a string.", "createdAt": "2026-11-21T11:02:00Z", "id": "IC_1", "includesCreatedEdit": False, "isMinimized": False, "minimizedReason": "", "reactionGroups": [], "url": "https://github.com/octo-org/shop/pull/418#issuecomment-1", "viewerDidAuthor": False},
    {"author": {"login": "dana"}, "authorAssociation": "MEMBER", "body": "No: the response still renders two decimals.", "createdAt": "2026-11-21T11:30:00Z", "id": "IC_2", "includesCreatedEdit": False, "isMinimized": False, "minimizedReason": "", "reactionGroups": [], "url": "https://github.com/octo-org/shop/pull/418#issuecomment-2", "viewerDidAuthor": True}],
    "number": 418, "state": "OPEN", "title": "Fix cart total rounding", "url": "https://github.com/octo-org/shop/pull/418"}
fx("cloud/gh", "pr-view-comments", "gh pr view 418 --json number,title,state,author,body,comments,url", json.dumps(prview) + "\n", 0,
   doc("gh needs a GitHub login"),
   ["#418 Fix cart total rounding [OPEN] (dana, 2 comments)", "comment by lee 2026-11-21:", "The mobile app parses `total` as a string.",
    "No: the response still renders two decimals.", "body:", "This switches to integer cents and rounds once.", "Fixes #402"],
   ['"authorAssociation"', "reactionGroups"])
