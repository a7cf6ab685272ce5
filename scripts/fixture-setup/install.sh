#!/usr/bin/env bash
# Builds the small projects the install/*, package/* and task/* fixtures were captured from.
#   scripts/fixture-setup/install.sh /tmp/tj
# Needs: node+npm, pnpm/yarn/bun (npm -g), pip, uv/poetry/pip-tools/rust-just (pip),
# @jdxcode/mise (npm -g), php, ruby, composer (apt), cargo.
# Creates under $1: npm-app (npm/pnpm/yarn/bun projects and scripts), py (a venv and
# requirements), uv-app, poetry-app, tiny-bin (a crate for cargo install), php-app
# (composer with a local path repository: packagist is not reachable here), tasks
# (justfile, mise.toml, scripts for node/python/ruby/php).
set -euo pipefail
d=${1:?usage: install.sh DIR}
rm -rf "$d"; mkdir -p "$d"; cd "$d"

# --- JavaScript: one app per package manager, with a build script that can fail
for pm in npm pnpm yarn bun; do
  mkdir -p "js-$pm/src"
  cat > "js-$pm/package.json" <<JSON
{
  "name": "demo-$pm",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "build": "node build.js",
    "gen": "node build.js",
    "lint": "node lint.js"
  },
  "dependencies": { "ms": "^2.1.3", "debug": "^4.3.4" }
}
JSON
  cat > "js-$pm/build.js" <<'JS'
const fs = require('fs');
fs.mkdirSync('dist', { recursive: true });
for (let i = 1; i <= 40; i++) console.log(`  transpiled src/module${i}.js -> dist/module${i}.js`);
console.log('build: 40 files written to dist/ in 0.31s');
JS
  cat > "js-$pm/lint.js" <<'JS'
for (let i = 1; i <= 30; i++) console.log(`checking src/module${i}.js`);
console.error("src/module17.js:12:5: error: 'cfg' is not defined (no-undef)");
console.error("src/module23.js:4:1: warning: unused variable 'tmp' (no-unused-vars)");
console.log('lint: 1 error, 1 warning in 30 files');
process.exit(1);
JS
done
# a yarn classic (1.x) next to the registry's default yarn
mkdir -p yarn1 && (cd yarn1 && npm install --silent --no-audit --no-fund yarn@1 >/dev/null)

# --- Python: a venv for pip, requirements for pip-compile, a uv project, a poetry project
python3 -m venv py-venv
printf 'requests==2.32.3\nsix\n' > requirements.txt
printf 'requests\nclick<9\n' > requirements.in
printf 'no-such-package-tj-4242==1.0\n' > broken.in
uv init -q --name uv-app --no-workspace uv-app
printf 'import sys\nprint("loading 3 records")\nrecords = {"a": 1}\nprint(records["b"])\n' > uv-app/broken.py
poetry new -q poetry-app 2>/dev/null || poetry new poetry-app >/dev/null

# --- Rust: a tiny binary crate for `cargo install --path`
cargo new -q --bin tiny-bin
printf 'fn main() {\n    let unused = 1;\n    println!("tiny");\n}\n' > tiny-bin/src/main.rs
cargo new -q --bin broken-bin
printf 'fn main() {\n    let n: u32 = "seven";\n    println!("{n}");\n}\n' > broken-bin/src/main.rs

# --- PHP: composer with local path packages (packagist is not reachable here)
mkdir -p php-app/packages/log php-app/packages/http
cat > php-app/packages/log/composer.json <<'JSON'
{ "name": "acme/log", "version": "1.4.0", "autoload": { "psr-4": { "Acme\\Log\\": "src/" } } }
JSON
cat > php-app/packages/http/composer.json <<'JSON'
{ "name": "acme/http", "version": "2.1.3", "require": { "acme/log": "^1.0" }, "autoload": { "psr-4": { "Acme\\Http\\": "src/" } } }
JSON
cat > php-app/composer.json <<'JSON'
{
  "name": "demo/php-app",
  "repositories": [ { "packagist.org": false }, { "type": "path", "url": "packages/*", "options": { "symlink": false } } ],
  "require": { "acme/http": "^2.0" },
  "scripts": { "post-install-cmd": ["php -r \"echo 'cache warmed'.PHP_EOL;\""] }
}
JSON
printf '<?php\n$cfg = ["db" => "sqlite"];\necho "migrating with {$cfg[\x27db\x27]}\\n";\n$pdo = new PDO("mysql:host=127.0.0.1;port=1;dbname=app", "root", "");\n' > php-app/migrate.php

# --- task runners and plain interpreters
mkdir -p tasks
cat > tasks/justfile <<'JUST'
build:
    @echo "building 3 targets"
    @for t in api web cli; do echo "  built $t"; done

check: build
    @echo "running checks"
    @python3 -c "import sys; print('config.toml:3: unknown key \"tiemout\"', file=sys.stderr); sys.exit(2)"
JUST
cat > tasks/mise.toml <<'TOML'
[tasks.build]
run = "echo 'bundling 12 modules' && echo 'wrote dist/app.js (48 kB)'"
[tasks.test]
run = "echo 'ran 5 tests' && echo 'FAIL tests/api.test.js > returns 404 for unknown ids' >&2 && exit 1"
TOML
printf 'for (let i = 1; i <= 60; i++) console.log(`synced user ${1000 + i} (${i * 3} rows)`);\nconsole.warn("warning: user 1042 has no email, skipped");\nconsole.log("sync done: 60 users, 180 rows, 1 skipped");\n' > tasks/ok.js
printf 'const cfg = require("./config.json");\n' > tasks/broken.js
printf 'import sys\nfor i in range(1, 61):\n    print(f"epoch {i}/60 loss={1/i:.4f} acc={0.5 + i/130:.3f}")\nprint("saved model to out/model.pt (12.4 MB)")\n' > tasks/ok.py
printf 'def load(path):\n    return open(path).read()\n\nload("missing.csv")\n' > tasks/broken.py
printf '(1..50).each { |i| puts "imported row #{i}: order-#{4000 + i}" }\nwarn "warning: row 17 has a negative total"\nputs "import finished: 50 rows"\n' > tasks/ok.rb
printf 'cfg = {name: "demo"}\nputs cfg.fetch(:token)\n' > tasks/broken.rb
printf '<?php\nfor ($i = 1; $i <= 50; $i++) { echo "Migrating: 2026_11_{$i}_create_table_{$i}\\n"; }\necho "Migrated 50 tables\\n";\n' > tasks/ok.php
