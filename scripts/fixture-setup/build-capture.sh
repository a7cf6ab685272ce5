#!/usr/bin/env bash
# Records the build/*, lint/* and task/make fixtures from the demo projects of build.sh.
#   scripts/fixture-setup/build.sh /tmp/tjb && scripts/fixture-setup/build-capture.sh /tmp/tjb
# Needs the tools listed in build.sh's header. Rules without a tool here (dotnet, msbuild,
# swift, xcodebuild, bazel, golangci-lint, cargo-audit) have fixtures written from the
# tool's documented output format instead (see their `about`).
set -uo pipefail
d=${1:?usage: build-capture.sh DIR}
cd "$(dirname "$0")/../.."
cap() { scripts/capture-fixture "$@" >/dev/null; }
export PATH="$d/js/node_modules/.bin:$PATH" npm_config_userconfig=/dev/null
unset CARGO_TARGET_DIR

# Rust (projects are cleaned first so the progress noise is what a fresh build prints)
(cd $d/rs-ok && cargo clean -q); (cd $d/rs-err && cargo clean -q); (cd $d/rs-lint && cargo clean -q)
cap build/cargo-build warnings --cwd $d/rs-ok --contains "warning: unused variable: \`unused\`" " --> src/main.rs:6:9" "warning: function \`helper\` is never used" "generated 2 warnings" "Finished" "2 warning" -- cargo build
cap build/cargo-build errors --cwd $d/rs-err --contains "error[E0425]: cannot find value \`missing_value\` in this scope" "  --> src/main.rs:14:20" "error[E0308]: mismatched types" " --> src/main.rs:7:49" "expected \`u32\`, found \`&str\`" "due to 2 previous errors" "2 error" --excludes "Compiling" -- cargo build
cap build/cargo-build check-errors --cwd $d/rs-err --contains "error[E0308]: mismatched types" "^^^^^^^^^^^^^ not found in this scope" "2 error" --excludes "Checking" -- cargo check
cap lint/clippy clean-warnings --cwd $d/rs-ok --contains "warning: unused variable: \`unused\`" " --> src/main.rs:1:4" "generated 2 warnings" "Finished" -- cargo clippy
cap lint/clippy deny-warnings --cwd $d/rs-lint --contains "error: unneeded \`return\` statement" " --> src/main.rs:6:5" "error: writing \`&Vec\` instead of \`&[_]\`" "needless-range-loop" "error: length comparison to zero" "  --> src/main.rs:11:8" "due to 4 previous errors" "4 error" --excludes "for further information visit" -- cargo clippy -- -D warnings
cap lint/cargo-fmt clean --cwd $d/rs-ok -- cargo fmt --check
cap lint/cargo-fmt diff --cwd $d/rs-fmt --contains "Diff in $d/rs-fmt/src/bin/tool.rs:1:" "Diff in $d/rs-fmt/src/main.rs:1:" "+fn add(a: i32, b: i32) -> i32 {" "-    let v = vec![1,2,3];" -- cargo fmt --check
(cd $d/rs-doc && cargo clean -q)
cap build/cargo-doc warnings --cwd $d/rs-doc --contains "warning: unresolved link to \`Missing\`" " --> src/lib.rs:1:38" "warning: unresolved link to \`Output\`" "Generated $d/rs-doc/target/doc/rs_doc/index.html" "2 warning" -- cargo doc --no-deps
cap build/cargo-doc deny-warnings --cwd $d/rs-doc --env RUSTDOCFLAGS=-Dwarnings --contains "error: unresolved link to \`Missing\`" " --> src/lib.rs:3:30" "could not document" -- cargo doc --no-deps
cap build/rustc warnings --cwd $d/rs-ok --contains "warning: unused variable: \`unused\`" "2 warnings emitted" -- rustc --edition 2021 -o /tmp/tjb-rustc-ok src/main.rs
cap build/rustc errors --cwd $d/rs-err --contains "error[E0425]: cannot find value \`missing_value\` in this scope" "error[E0308]: mismatched types" "aborting due to 2 previous errors" "2 error" -- rustc --edition 2021 -o /tmp/tjb-rustc-err src/main.rs
(cd $d/rs-bench && cargo clean -q)
cap build/cargo-bench failing --cwd $d/rs-bench --contains "bench_fib_10 ... bench:" "bench_fib_15 ... bench:" "bench_fib_checked" "fib(10) is wrong" "left: 55" "right: 56" "1 failed benchmark" -- cargo +nightly bench
sed -i 's/assert_eq!(fib(10), 56/assert_eq!(fib(10), 55/' $d/rs-bench/src/lib.rs
cap build/cargo-bench results --cwd $d/rs-bench --contains "bench_fib_10 ... bench:" "bench_fib_15 ... bench:" "bench_fib_checked ... bench:" "3 measured" -- cargo +nightly bench
sed -i 's/assert_eq!(fib(10), 55/assert_eq!(fib(10), 56/' $d/rs-bench/src/lib.rs
(cd $d/rs-run && cargo clean -q)
cap task/cargo-run output --cwd $d/rs-run --contains "processing item 0" "processing item 2" "result: 30" -- cargo run -- 5
cap task/cargo-run panic --cwd $d/rs-run --contains "thread 'main' panicked at src/main.rs" "argument must be a number" "ParseIntError" -- cargo run -- five
(cd $d/rs-tree && cargo clean -q)
cap package/cargo-tree deps --cwd $d/rs-tree --contains "rs-tree v0.1.0" "itoa v1." "memchr v2." -- cargo tree
cap package/cargo-tree bad-spec --cwd $d/rs-tree --contains "serde" -- cargo tree -i serde

# C, make, cmake
cap build/cc gcc-warning --cwd $d/c-ok --contains "main.c:4:9: warning: unused variable ‘unused’ [-Wunused-variable]" "main.c: In function ‘main’:" -- gcc -Wall -o main main.c
cap build/cc gcc-errors --cwd $d/c-err --contains "main.c:7:19: error: ‘struct point’ has no member named ‘z’" "main.c:14:29: error: expected ‘;’ before ‘}’ token" "main.c:12:18: warning: initialization of ‘char *’ from ‘int’" "[-Wimplicit-function-declaration]" "2 error" "3 warning" -- gcc -Wall -o main main.c
cap build/cc clang-errors --cwd $d/c-err --contains "main.c:7:20: error: no member named 'z' in 'struct point'" "main.c:14:29: error: expected ';' after return statement" "2 warnings and 2 errors generated." -- clang -Wall -o main main.c
cap build/cc link-error --cwd $d/c-make --contains "undefined reference to \`scale'" "ld returned 1 exit status" -- gcc -o app main.c
(cd $d/c-make-ok && make -s clean); (cd $d/c-make && make -s clean)
cap task/make build --cwd $d/c-make-ok --contains "main.c:3:22: warning: unused variable ‘spare’ [-Wunused-variable]" "cc -o app main.o util.o" -- make
cap task/make compile-error --cwd $d/c-make --contains "util.c:2:16: error: ‘factor’ undeclared (first use in this function)" "make: *** [Makefile:8: util.o] Error 1" "main.c:3:22: warning: unused variable ‘spare’" -- make
rm -rf $d/cm-ok/build $d/cm-err/build
cap build/cmake configure --cwd $d/cm-ok --contains "-- Configuring done" "-- Build files have been written to: $d/cm-ok/build" --excludes "Detecting C compiler ABI info" -- cmake -S . -B build
cap build/cmake build --cwd $d/cm-ok --contains "$d/cm-ok/main.c:3:22: warning: unused variable ‘spare’" "[100%] Built target app" -- cmake --build build
(cd $d/cm-err && cmake -S . -B build -G Ninja >/dev/null)
cap build/cmake ninja-error --cwd $d/cm-err --contains "FAILED: CMakeFiles/app.dir/util.c.o" "$d/cm-err/util.c:2:16: error: ‘factor’ undeclared" "ninja: build stopped: subcommand failed." -- cmake --build build
sed -i 's/add_executable(app main.c util.c)/add_executable(app main.c util.c)\ntarget_link_libraries(app PRIVATE missing_lib::missing)/' $d/cm-ok/CMakeLists.txt
rm -rf $d/cm-ok/build
cap build/cmake configure-error --cwd $d/cm-ok --contains "CMake Error at CMakeLists.txt:5 (target_link_libraries):" "missing_lib::missing" "-- Configuring incomplete, errors occurred!" -- cmake -S . -B build
sed -i '/missing_lib/d' $d/cm-ok/CMakeLists.txt

# Go
cap build/go-build ok --cwd $d/go-ok -- go build ./...
cap build/go-build errors --cwd $d/go-err --contains "# example.com/go-err/cmd/api" "cmd/api/main.go:5:2: imported and not used: \"os\"" "cmd/api/main.go:13:2: undefined: startSever" -- go build ./...
cap lint/go-vet clean --cwd $d/go-ok -- go vet ./...
cap lint/go-vet findings --cwd $d/go-vet --contains "# example.com/go-vet/internal/store" "internal/store/extra.go:6:2: fmt.Printf format %s has arg len(s.items) of wrong type int" "internal/store/extra.go:8:2: unreachable code" "cmd/api/main.go:13:2: fmt.Printf format %d has arg \"many\" of wrong type string" -- go vet ./...

# JavaScript / TypeScript
J=$d/js
cap build/tsc ok --cwd $J/ts-ok -- npx tsc -p . --noEmit
cap build/tsc errors --cwd $J/ts-err --contains "src/index.ts(6,7): error TS2322: Type 'number' is not assignable to type 'string'." "src/index.ts(14,10): error TS18048: 'o.customer' is possibly 'undefined'." "src/user.ts(4,33): error TS2345" "5 error" -- npx tsc -p . --noEmit
cap build/tsc pretty-errors --cwd $J/ts-err --contains "src/index.ts:6:7 - error TS2322: Type 'number' is not assignable to type 'string'." "src/user.ts:4:33 - error TS2345" "Found 5 errors in 2 files." -- npx tsc -p . --noEmit --pretty
cap build/esbuild ok --cwd $J/web-ok --contains "dist/out.js" "Done in" -- npx esbuild src/index.js --bundle --outfile=dist/out.js
cap build/esbuild errors --cwd $J/web-err --contains "✘ [ERROR] Could not resolve \"left-pad\"" "src/index.js:2:16:" "✘ [ERROR] Could not resolve \"./missing.js\"" "src/index.js:3:22:" "2 errors" -- npx esbuild src/index.js --bundle --outfile=dist/out.js
cap build/vite ok --cwd $J/web-ok --contains "dist/index.html" "dist/assets/index-" "✓ built in" --excludes "transforming..." -- npx vite build
cap build/vite unresolved-import --cwd $J/web-err --contains "[UNRESOLVED_IMPORT]" "Could not resolve './missing.js' in src/index.js" "src/index.js:3:23" "Build failed with 1 error" --excludes "at aggregateBindingErrorsIntoJsError" -- npx vite build
cap build/webpack ok --cwd $J/web-ok --contains "asset main.js" "compiled successfully" -- npx webpack --config webpack.config.cjs
cap build/webpack module-not-found --cwd $J/web-err --contains "ERROR in ./src/index.js 2:0-27" "Module not found: Error: Can't resolve 'left-pad' in '$J/web-err/src'" "ERROR in ./src/index.js 3:0-37" "Can't resolve './missing.js'" "compiled with 2 errors" "2 error" --excludes "Field 'browser' doesn't contain a valid alias configuration" -- npx webpack --config webpack.config.cjs
cap build/tsdown ok --cwd $J/web-ok --contains "dist/index.mjs" "Build complete" -- npx tsdown
cap build/tsdown unresolved-import --cwd $J/web-err --contains "Build failed with 1 error" "Could not resolve './missing.js' in src/index.js" "src/index.js:3:23" --excludes "at aggregateBindingErrorsIntoJsError" -- npx tsdown
cap lint/eslint clean --cwd $J/lint-ok -- npx eslint src
cap lint/eslint problems --cwd $J/lint-err --contains "$J/lint-err/src/index.js" "2:3   error    Unexpected var, use let or const instead     no-var" "8:3   warning  Unexpected console statement                 no-console" "$J/lint-err/src/util.js" "3:45  error  Empty block statement                no-empty" "✖ 8 problems (7 errors, 1 warning)" -- npx eslint src
cap lint/biome clean --cwd $J/lint-ok --contains "Checked 1 file" -- npx biome check src
cap lint/biome diagnostics --cwd $J/lint-err --contains "src/index.js:7:9 lint/correctness/noUnusedVariables" "This variable unused is unused." "src/index.js:4:29 lint/suspicious/noDebugger" "src/util.js:1:33 lint/suspicious/noDoubleEquals" "src/util.js format" "Found 5 errors." --excludes "i Unsafe fix" -- npx biome check src
cap lint/oxlint clean --cwd $J/lint-ok --contains "Found 0 warnings and 0 errors." -- npx oxlint src
cap lint/oxlint deny-warnings --cwd $J/lint-err --contains "eslint(no-unused-vars): Variable 'unused' is declared but never used." "[src/index.js:7:9]" "eslint(no-debugger)" "[src/util.js:3:42]" "Found 3 warnings and 0 errors." -- npx oxlint --deny-warnings src
cap lint/prettier-check clean --cwd $J/lint-ok --contains "All matched files use Prettier code style!" -- npx prettier --check src
cap lint/prettier-check unformatted --cwd $J/lint-err --contains "[warn] src/index.js" "[warn] src/util.js" "Code style issues found in 2 files" -- npx prettier --check src
cap build/pnpm-build ok --cwd $J/ts-ok --contains "pnpm build: ok" -- pnpm build
cap build/pnpm-build errors --cwd $J/ts-err --contains "src/index.ts(6,7): error TS2322" "src/user.ts(4,33): error TS2345" -- pnpm build

# Python
cap lint/ruff clean --cwd $d/py-ok --contains "All checks passed!" -- ruff check .
cap lint/ruff violations --cwd $d/py-err --contains "F821 Undefined name \`undefined_name\`" " --> app/cli.py:4:20" "F401 [*] \`os\` imported but unused" " --> app/core.py:1:8" "F841 Local variable \`unused\` is assigned to but never used" "  --> app/core.py:10:5" "Found 7 errors." "5 fixable" -- ruff check .
cap lint/ruff concise --cwd $d/py-err --contains "app/cli.py:4:20: F821 Undefined name \`undefined_name\`" "app/core.py:1:8: F401 [*] \`os\` imported but unused" "Found 7 errors." -- ruff check --output-format concise .
cap lint/ruff-format clean --cwd $d/py-ok --contains "2 files already formatted" -- ruff format --check .
cap lint/ruff-format unformatted --cwd $d/py-err --contains " --> app/cli.py:2:1" "  --> app/core.py:5:1" "2 files would be reformatted, 1 file already formatted" -- ruff format --check .
cap lint/mypy clean --cwd $d/py-ok --contains "Success: no issues found in 2 source files" -- mypy app
cap lint/mypy errors --cwd $d/py-err --contains "app/core.py:6: error: Incompatible types in assignment (expression has type \"int\", variable has type \"str\")  [assignment]" "app/core.py:11: error: Unsupported operand types for + (\"int\" and \"str\")  [operator]" "Found 4 errors in 1 file (checked 3 source files)" -- mypy app
cap lint/black clean --cwd $d/py-ok --contains "2 files would be left unchanged." -- black --check .
cap lint/black would-reformat --cwd $d/py-err --contains "would reformat $d/py-err/app/cli.py" "would reformat $d/py-err/app/core.py" "2 files would be reformatted, 1 file would be left unchanged." -- black --check .
cap lint/flake8 clean --cwd $d/py-ok -- flake8 app
cap lint/flake8 violations --cwd $d/py-err --contains "app/cli.py (7):" "  4:20: F821 undefined name 'undefined_name'" "  3:15,3:17: E231 missing whitespace after ','" "  14:12: E711 comparison to None should be 'if cond is None:'" "  5:1,9:1,13:1: E302 expected 2 blank lines, found 1" "14 violation" -- flake8 app
cap lint/pylint clean --cwd $d/py-ok --contains "rated at" -- pylint --disable=missing-docstring app
cap lint/pylint messages --cwd $d/py-err --contains "app/cli.py (5):" "  4:19: E0602: Undefined variable 'undefined_name' (undefined-variable)" "  5:0,9:0,13:0: C0116: Missing function or method docstring (missing-function-docstring)" "  2:0: W0611: Unused import sys (unused-import)" "Your code has been rated at" -- pylint app
cap lint/pylint many-modules --cwd $d/py-orders --about "real output, captured 2026-11-26 on Linux x86_64 (pylint over a package and its tests)" --contains "  5:0,10:0,14:0,19:0,25:0,31:0,35:0: C0116: Missing function or method docstring (missing-function-docstring)" "Your code has been rated at" -- pylint app tests
cap lint/mypy strict-repeated --cwd $d/py-orders --about "real output, captured 2026-11-26 on Linux x86_64 (mypy --strict on a small project: one message on many lines)" --contains "tests/test_orders.py (12):" "  5,10,14,19,35: error: Function is missing a return type annotation  [no-untyped-def]" "  22: note: Right operand is of type \"float | None\"" "Found 9 errors in 2 files (checked 3 source files)" -- mypy --strict app tests
cap lint/ruff concise-all --cwd $d/py-orders --about "real output, captured 2026-11-26 on Linux x86_64 (ruff check --output-format concise with every rule selected)" --contains "tests/test_orders.py (" "Found 49 errors." -- ruff check --output-format concise --select ALL .
cap lint/pyright clean --cwd $d/py-ok --contains "0 errors, 0 warnings, 0 informations" -- pyright app
cap lint/pyright errors --cwd $d/py-err --contains "$d/py-err/app/cli.py:4:20 - error: \"undefined_name\" is not defined (reportUndefinedVariable)" "$d/py-err/app/core.py:6:19 - error: Type \"int\" is not assignable to declared type \"str\"" "4 errors, 0 warnings, 0 informations" -- pyright app

# JVM
cap build/maven validate --cwd $d/mvn-demo --contains "BUILD SUCCESS" "Building inventory 1.0.0" -- mvn -B validate
cap build/maven plugin-unresolved --cwd $d/mvn-demo --contains "BUILD FAILURE" "Plugin org.apache.maven.plugins:maven-resources-plugin:2.6 or one of its dependencies could not be resolved" --excludes "To see the full stack trace" -- mvn -B compile
cap build/gradle compile-errors --cwd $d/gradle-demo --contains "App.java:4: error: incompatible types: String cannot be converted to int" "App.java:5: error: cannot find symbol" "symbol:   method missing(int)" "Execution failed for task ':compileJava'." "BUILD FAILED" --excludes "Run with --stacktrace" -- gradle build --offline
cap build/gradle successful --cwd $d/gradle-ok --contains "BUILD SUCCESSFUL" -- gradle build --offline

# monorepo (turbo needs a lockfile and a git repo; BREAK_WEB makes one package fail)
(cd $d/turbo-demo && npm install --no-audit --no-fund >/dev/null 2>&1; git add -A; git -c user.email=d@e -c user.name=d commit -qm lock)
export TURBO_TELEMETRY_DISABLED=1
cap build/turbo ok --cwd $d/turbo-demo --contains "api:build: warning: api/src/db.ts uses a deprecated driver option" "Tasks:    2 successful, 2 total" -- turbo run build --env-mode=loose --force
cap build/turbo failed --env BREAK_WEB=1 --cwd $d/turbo-demo --contains "web:build: src/pages/cart.tsx(14,9): error TS2339: Property 'totl' does not exist on type 'Cart'." "Failed:    web#build" -- turbo run build --env-mode=loose --force

# deno, shellcheck
cap lint/deno-lint clean --cwd $d/deno-demo --contains "Checked 1 file" -- deno lint ok.ts
cap lint/deno-lint problems --cwd $d/deno-demo --contains "error[no-unused-vars]: \`unused\` is never used" "$d/deno-demo/main.ts:1:7" "Found 1 problem" -- deno lint main.ts
cap build/deno-check ok --cwd $d/deno-demo -- deno check ok.ts
cap build/deno-check type-error --cwd $d/deno-demo --contains "TS2322 [ERROR]: Type 'string' is not assignable to type 'number'." "file://$d/deno-demo/main.ts:3:7" "Type checking failed." -- deno check main.ts
cap lint/shellcheck clean --cwd $d/sh-demo -- shellcheck ok.sh
cap lint/shellcheck findings --cwd $d/sh-demo --contains "In deploy.sh line 3:" "SC2086 (info): Double quote to prevent globbing and word splitting." "In deploy.sh line 7:" "if [ \"\$target\" == \"prod\" ]; then" -- shellcheck deploy.sh
