#!/usr/bin/env bash
# Repositories for the git/fetch, pull, push, clone, rebase, merge, cherry-pick and blame
# fixtures:   scripts/fixture-setup/git-sync.sh /tmp/gs
# $1/origin.git (bare), $1/alice and $1/bob (clones); alice pushes two commits that bob
# has not fetched; bob has a local commit touching the same line as one of alice's.
set -euo pipefail
d=${1:?usage: git-sync.sh DIR}
rm -rf "$d" && mkdir -p "$d"
cd "$d"
export GIT_AUTHOR_NAME="Alice Doe" GIT_AUTHOR_EMAIL=alice@example.com GIT_COMMITTER_NAME="Alice Doe" GIT_COMMITTER_EMAIL=alice@example.com
export GIT_AUTHOR_DATE="2026-11-18T09:00:00+0100" GIT_COMMITTER_DATE="2026-11-18T09:00:00+0100"
git init -q --bare -b main origin.git
git clone -q origin.git alice 2>/dev/null
cd alice
printf 'fn main() {\n    let rate = 10;\n    println!("{}", rate);\n}\n' > main.rs
printf '# app\n' > README.md
git add -A && git commit -qm "Initial version" && git push -q origin main
cd .. && git clone -q origin.git bob && cd alice
export GIT_AUTHOR_DATE="2026-11-19T10:00:00+0100" GIT_COMMITTER_DATE="2026-11-19T10:00:00+0100"
sed -i 's/rate = 10/rate = 12/' main.rs && git commit -qam "Raise the rate to 12"
printf '# app\n\nRun with cargo run.\n' > README.md && git commit -qam "Document how to run"
git checkout -q -b feature/logging
echo '// logging goes here' >> main.rs && git commit -qam "Add a logging placeholder"
git checkout -q main && git push -q origin main feature/logging
cd ../bob
export GIT_AUTHOR_NAME="Bob Roe" GIT_AUTHOR_EMAIL=bob@example.com GIT_COMMITTER_NAME="Bob Roe" GIT_COMMITTER_EMAIL=bob@example.com
export GIT_AUTHOR_DATE="2026-11-19T11:00:00+0100" GIT_COMMITTER_DATE="2026-11-19T11:00:00+0100"
sed -i 's/rate = 10/rate = 15/' main.rs && git commit -qam "Use rate 15"
