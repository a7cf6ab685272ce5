#!/usr/bin/env bash
# Builds what the listing, search, system, text, transfer, archive, media and network
# fixtures were captured from, and starts the loopback-only servers they talk to.
#   scripts/fixture-setup/sys.sh /tmp/tj-sys          # build everything, start servers
#   scripts/fixture-setup/sys.sh /tmp/tj-sys stop     # stop the servers it started
# Needs (Debian): git python3 ripgrep fd-find zip unzip rsync openssh-client openssh-server
#   dnsutils dnsmasq iputils-ping traceroute iptables ffmpeg mediainfo curl wget file procps
# Creates:
#   $1/shop          a small TypeScript-shaped project, a git repo (listings, search, wc, du)
#   $1/shop/dist/app.min.js   one very long minified line (search line clipping)
#   $1/out           archives made from it (tar, zip)
#   $1/media         a 2 s test video (ffmpeg lavfi testsrc) for ffmpeg/mediainfo
#   $1/app.log       a realistic service log (for `tail -n 2000 app.log`)
# Servers, all on 127.0.0.1 only:
#   :8765  python HTTP API (JSON, text, 404, 500, a .tgz file)   -> curl, wget
#   :2222  sshd, key login for root with $1/ssh/id_ed25519       -> ssh, scp
#   :5353  dnsmasq answering for *.shop.test                      -> dig, nslookup
set -euo pipefail
d=${1:?usage: sys.sh DIR [stop]}

stop() {
  for p in "$d"/run/*.pid; do
    [ -f "$p" ] || continue
    kill "$(cat "$p")" 2>/dev/null || true
    rm -f "$p"
  done
}
if [ "${2:-}" = stop ]; then stop; exit 0; fi
stop 2>/dev/null || true
rm -rf "$d"
mkdir -p "$d/run"

# --- the project -----------------------------------------------------------
p="$d/shop"
mkdir -p "$p"/src/{api,ui/components,ui/pages,lib} "$p"/tests/{api,ui} "$p"/docs "$p"/scripts "$p"/dist
cd "$p"
git init -q -b main
git config user.email dev@example.com
git config user.name "Dana Dev"
cat > package.json <<'EOF'
{ "name": "shop", "version": "1.4.0", "scripts": { "build": "tsc", "test": "vitest" } }
EOF
printf '# shop\n\nA small demo shop.\n' > README.md
printf 'node_modules/\ndist/\n' > .gitignore
for f in cart orders products users payments; do
  cat > "src/api/$f.ts" <<EOF
import { db } from "../lib/db";

// TODO: paginate $f results
export async function list${f^}(limit = 50) {
  const rows = await db.query("select * from $f limit \$1", [limit]);
  return rows.map((r) => ({ ...r, kind: "$f" }));
}

export async function get${f^}(id: string) {
  // FIXME: validate id before querying $f
  return db.one("select * from $f where id = \$1", [id]);
}
EOF
done
for c in Button Cart Header Footer ProductCard Modal; do
  cat > "src/ui/components/$c.tsx" <<EOF
export function $c(props: { title?: string }) {
  // TODO: add aria labels to $c
  return <div className="$c">{props.title}</div>;
}
EOF
done
for pg in Home Checkout Account; do
  printf 'import { Header } from "../components/Header";\n\nexport default function %sPage() {\n  return <Header title="%s" />;\n}\n' "$pg" "$pg" > "src/ui/pages/$pg.tsx"
done
cat > src/lib/db.ts <<'EOF'
export const db = {
  async query(sql: string, args: unknown[]) { return [] as any[]; },
  async one(sql: string, args: unknown[]) { return null; },
};
// TODO: connection pooling
EOF
printf 'export function log(msg: string) {\n  console.log(msg);\n}\n' > src/lib/log.ts
printf 'import { listCart } from "./api/cart";\n\nlistCart().then(console.log);\n' > src/index.ts
for t in cart orders products; do
  printf 'import { list%s } from "../../src/api/%s";\n\ntest("%s lists", async () => {\n  expect(await list%s()).toEqual([]);\n});\n' "${t^}" "$t" "$t" "${t^}" > "tests/api/$t.test.ts"
done
printf 'test("button renders", () => {});\n' > tests/ui/Button.test.tsx
printf '# API\n\nTODO: document the orders endpoint.\n' > docs/api.md
printf '# Deploying\n\nRun scripts/deploy.sh.\n' > docs/deploy.md
printf '#!/bin/sh\nset -e\nrsync -a dist/ deploy@shop:/srv/shop/\n' > scripts/deploy.sh
chmod +x scripts/deploy.sh
printf 'export const config = { port: 8080 };\n' > "src/lib/config.ts"
ln -s src/index.ts main.ts
# a minified bundle: one long line with a TODO in the middle
python3 - <<'EOF'
parts = [f"function f{i}(a,b){{return a*{i}+b}}" for i in range(400)]
parts.insert(200, 'var TODO_MARKER="TODO: remove debug hook";')
open("dist/app.min.js", "w").write(";".join(parts) + "\n")
EOF
git add -A
GIT_COMMITTER_DATE="2026-11-18T09:00:00+0100" git commit -q --date "2026-11-18T09:00:00+0100" -m "Initial shop"
touch -d "2026-11-20 10:00" $(git ls-files) dist/app.min.js

# --- archives ---------------------------------------------------------------
mkdir -p "$d/out"
tar -czf "$d/out/shop-src.tar.gz" -C "$d" shop/src shop/docs
(cd "$d" && zip -qr out/shop-src.zip shop/src shop/docs)

# --- media ------------------------------------------------------------------
mkdir -p "$d/media"
ffmpeg -loglevel error -f lavfi -i testsrc=duration=2:size=320x240:rate=25 \
  -f lavfi -i sine=frequency=440:duration=2 -c:v libx264 -pix_fmt yuv420p -c:a aac \
  -shortest "$d/media/clip.mov"

# --- a service log ----------------------------------------------------------
python3 - "$d/app.log" <<'EOF'
import random, sys, datetime
random.seed(7)
t = datetime.datetime(2026, 11, 22, 9, 0, 0)
paths = ["/api/products", "/api/cart", "/api/orders", "/health", "/api/users/42", "/static/app.js"]
out = []
for i in range(300):
    t += datetime.timedelta(milliseconds=random.randint(50, 900))
    ts = t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
    r = random.random()
    if i in (95, 240):
        out.append(f"{ts} ERROR [orders] payment capture failed for order {9000 + i}: upstream timeout after 30s")
        out.append("Traceback (most recent call last):")
        out.append('  File "/srv/shop/orders.py", line 88, in capture')
        out.append("    resp = client.post(url, json=body, timeout=30)")
        out.append('  File "/srv/shop/http.py", line 41, in post')
        out.append("    raise TimeoutError(f\"{url} did not answer in {timeout}s\")")
        out.append("TimeoutError: https://pay.internal/capture did not answer in 30s")
    elif i == 170:
        out.append(f"{ts} ERROR [db] connection lost: server closed the connection unexpectedly")
    elif r < 0.025:
        out.append(f"{ts} WARNING [cache] redis latency {random.randint(200, 900)}ms above 200ms threshold")
    elif r < 0.06:
        out.append(f"{ts} INFO [worker] job {random.randint(1000, 9999)} done in {random.randint(5, 400)}ms")
    elif r < 0.08:
        out.append(f"{ts} DEBUG [auth] token refreshed for user {random.randint(1, 500)}")
    else:
        p = random.choice(paths)
        code = 200 if random.random() > 0.03 else 404
        out.append(f'{ts} INFO [http] 127.0.0.1 "GET {p} HTTP/1.1" {code} {random.randint(100, 9000)} {random.randint(1, 250)}ms')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF

# --- HTTP API on 127.0.0.1:8765 --------------------------------------------
mkdir -p "$d/www"
cp "$d/out/shop-src.tar.gz" "$d/www/shop-src.tar.gz"
head -c 700000 /dev/urandom > "$d/www/assets.bin"
cat > "$d/run/api.py" <<'EOF'
import json, sys, os
from http.server import ThreadingHTTPServer, SimpleHTTPRequestHandler
ITEMS = [{"id": i, "name": f"Product {i}", "price": round(3.5 * i, 2), "tags": ["demo", "shop"],
          "stock": {"warehouse": "north", "count": i * 7}} for i in range(1, 41)]
class H(SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=sys.argv[2], **k)
    def send_json(self, code, obj, indent=2):
        body = json.dumps(obj, indent=indent).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == "/api/health":
            return self.send_json(200, {"status": "ok", "version": "1.4.0", "uptime_s": 3812})
        if self.path == "/api/products":
            return self.send_json(200, {"items": ITEMS, "total": len(ITEMS), "page": 1})
        if self.path == "/api/events":
            ev = [{"id": f"evt_{i:04d}", "type": ["order.created", "order.paid", "cart.updated"][i % 3],
                   "at": f"2026-11-22T09:{i // 60 % 60:02d}:{i % 60:02d}Z", "data": {"order": 9000 + i, "amount": 12.5 * (i % 7)}}
                  for i in range(120)]
            return self.send_json(200, {"events": ev, "next_cursor": "evt_0120", "has_more": True})
        if self.path == "/api/orders":
            return self.send_json(500, {"error": "internal", "message": "database connection refused", "request_id": "req-7f3a"})
        if self.path.startswith("/api/"):
            return self.send_json(404, {"error": "not_found", "path": self.path})
        return super().do_GET()
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        data = self.rfile.read(n)
        return self.send_json(201, {"created": json.loads(data or b"{}"), "id": 41})
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
python3 "$d/run/api.py" 8765 "$d/www" >/dev/null 2>&1 &
echo $! > "$d/run/api.pid"
for _ in $(seq 50); do curl -fs -o /dev/null http://127.0.0.1:8765/api/health && break; sleep 0.1; done

# --- sshd on 127.0.0.1:2222 -------------------------------------------------
mkdir -p "$d/ssh" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$d/ssh/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -C dev@laptop -f "$d/ssh/id_ed25519"
printf 'Authorized access only. All activity may be monitored and reported.\n' > "$d/ssh/banner"
cat > "$d/ssh/sshd_config" <<EOF
Port 2222
ListenAddress 127.0.0.1
HostKey $d/ssh/host_ed25519
PidFile $d/run/sshd.pid
AuthorizedKeysFile $d/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
Banner $d/ssh/banner
PrintMotd no
Subsystem sftp /usr/lib/openssh/sftp-server
UsePAM no
StrictModes no
EOF
cp "$d/ssh/id_ed25519.pub" "$d/ssh/authorized_keys"
chmod 600 "$d/ssh/authorized_keys"
/usr/sbin/sshd -f "$d/ssh/sshd_config"
cat > "$d/ssh/config" <<EOF
Host shop
  HostName 127.0.0.1
  Port 2222
  User root
  IdentityFile $d/ssh/id_ed25519
  UserKnownHostsFile $d/ssh/known_hosts
  StrictHostKeyChecking accept-new
EOF

# --- dnsmasq on 127.0.0.1:5353 ---------------------------------------------
dnsmasq --port=5353 --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts --local=/shop.test/ \
  --address=/api.shop.test/127.0.0.10 --host-record=www.shop.test,127.0.0.11 \
  --host-record=db.shop.test,127.0.0.12 --cname=cdn.shop.test,www.shop.test \
  --mx-host=shop.test,mail.shop.test,10 --txt-record=shop.test,"v=spf1 -all" \
  --pid-file="$d/run/dnsmasq.pid"
echo "ready: $d"
