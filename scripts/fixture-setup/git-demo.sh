#!/usr/bin/env bash
# Builds the small git repositories the git/* fixtures were captured from.
#   scripts/fixture-setup/git-demo.sh /tmp/demo
# Creates: $1 (dirty work tree, one commit ahead of its upstream), $1-origin.git
# (the upstream), $1-clean (a clean clone).
set -euo pipefail
d=${1:?usage: git-demo.sh DIR}
rm -rf "$d" "$d-origin.git" "$d-clean"
git init -q --bare -b main "$d-origin.git"
git init -q -b main "$d"
cd "$d"
git config user.email dev@example.com
git config user.name "Dana Dev"
mkdir -p src/reduce docs
for f in src/main.rs src/lib.rs src/reduce/engine.rs src/reduce/render.rs src/reduce/shape.rs docs/guide.md README.md; do
  seq 1 40 | sed "s|^|line in $f |" > "$f"
done
git add -A
GIT_COMMITTER_DATE="2026-11-18T09:00:00+0100" git commit -q --date "2026-11-18T09:00:00+0100" -m "Initial import"
git remote add origin "$d-origin.git"
git push -q -u origin main
echo "fix" >> src/main.rs
GIT_COMMITTER_DATE="2026-11-20T10:00:00+0100" git commit -q --date "2026-11-20T10:00:00+0100" -am "Fix the main loop

The loop never exited when the input ended early.
It now checks for EOF before reading.
This also covers the empty-input case.
Reported by the CI job."
git branch feature/parser
git branch fix/ci
git clone -q "$d-origin.git" "$d-clean"
sed -i 's|line in src/lib.rs 7$|CHANGED line seven|; s|line in src/lib.rs 30$|CHANGED line thirty|' src/lib.rs
git add src/lib.rs
sed -i 's|line in src/reduce/engine.rs 12$|engine twelve rewritten|' src/reduce/engine.rs
sed -i '3d' src/reduce/render.rs
echo x >> src/reduce/shape.rs
git rm -q docs/guide.md
echo "todo" > notes.txt
mkdir tmp && touch tmp/a tmp/b
