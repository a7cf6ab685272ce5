#!/usr/bin/env bash
# Builds the small projects the build/*, lint/* and task/make fixtures were captured from.
#   scripts/fixture-setup/build.sh /tmp/tjb
# Each subdirectory of $1 is one demo project; the capture commands are at the bottom
# (`capture` lines) and can be re-run with CAPTURE=1 once the tools are installed:
#   apt-get install -y cmake clang ninja-build gradle shellcheck golang-go
#   pip install ruff mypy black flake8 pylint
#   (cd $1/js && npm install typescript esbuild vite webpack webpack-cli tsdown eslint \
#      @eslint/js typescript-eslint @biomejs/biome oxlint prettier turbo deno pyright)
set -euo pipefail
d=${1:?usage: build.sh DIR}
mkdir -p "$d"
cd "$d"

# ---------------------------------------------------------------- Rust
rm -rf rs-ok rs-err rs-lint rs-fmt rs-doc rs-bench rs-run rs-tree
cargo new -q --vcs none rs-ok
cat > rs-ok/src/main.rs <<'EOF'
fn helper(n: u32) -> u32 {
    n * 2
}

fn main() {
    let unused = 5;
    let total: u32 = (1..4).sum();
    println!("total = {total}");
}
EOF
cargo new -q --vcs none rs-err
cat > rs-err/src/main.rs <<'EOF'
struct Config {
    name: String,
    retries: u32,
}

fn load() -> Config {
    Config { name: "demo".to_string(), retries: "3" }
}

fn main() {
    let cfg = load();
    let spare = 1;
    println!("{} {}", cfg.name, cfg.retries);
    println!("{}", missing_value);
}
EOF
cargo new -q --vcs none rs-lint
cat > rs-lint/src/main.rs <<'EOF'
fn double(v: &Vec<i32>) -> Vec<i32> {
    let mut out = Vec::new();
    for i in 0..v.len() {
        out.push(v[i] * 2);
    }
    return out;
}

fn main() {
    let xs = vec![1, 2, 3];
    if xs.len() == 0 {
        println!("empty");
    }
    println!("{:?}", double(&xs));
}
EOF
cargo new -q --vcs none rs-fmt
cat > rs-fmt/src/main.rs <<'EOF'
fn add(a:i32,b:i32)->i32{a+b}

fn main() {
    let v = vec![1,2,3];
    println!("{}", add(v[0],   v[1]));
}
EOF
mkdir -p rs-fmt/src/bin
cat > rs-fmt/src/bin/tool.rs <<'EOF'
fn main() { let x=1; println!("{}",x); }
EOF
cargo new -q --vcs none --lib rs-doc
cat > rs-doc/src/lib.rs <<'EOF'
//! Demo crate. See [`Parser`] and [`Missing`].

/// Parses things. Returns [`Output`] on success.
pub struct Parser;

/// Unclosed `code
pub fn parse(_s: &str) -> Option<Parser> {
    None
}
EOF
cargo new -q --vcs none --lib rs-bench
cat > rs-bench/src/lib.rs <<'EOF'
#![feature(test)]
extern crate test;

pub fn fib(n: u64) -> u64 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

#[cfg(test)]
mod benches {
    use super::*;
    use test::Bencher;

    #[bench]
    fn bench_fib_10(b: &mut Bencher) {
        b.iter(|| fib(test::black_box(10)));
    }

    #[bench]
    fn bench_fib_15(b: &mut Bencher) {
        b.iter(|| fib(test::black_box(15)));
    }

    #[bench]
    fn bench_fib_checked(b: &mut Bencher) {
        assert_eq!(fib(10), 56, "fib(10) is wrong");
        b.iter(|| fib(5));
    }
}
EOF
cargo new -q --vcs none rs-run
cat > rs-run/src/main.rs <<'EOF'
use std::env;

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    for i in 0..3 {
        println!("processing item {i}");
    }
    let n: u32 = args.first().map(|s| s.parse().expect("argument must be a number")).unwrap_or(7);
    println!("result: {}", n * 6);
}
EOF
cargo new -q --vcs none rs-tree
for p in rs-ok rs-err rs-lint rs-run; do
  printf 'itoa = "1"\nmemchr = "2"\ncfg-if = "1"\nsmallvec = "1"\n' >> $p/Cargo.toml
done
cat >> rs-tree/Cargo.toml <<'EOF'
itoa = "1"
memchr = "2"
EOF

# ---------------------------------------------------------------- C, make, cmake
rm -rf c-ok c-err c-make c-make-ok cm-ok cm-err
mkdir -p c-ok c-err c-make c-make-ok
cat > c-ok/main.c <<'EOF'
#include <stdio.h>

int main(void) {
    int unused = 3;
    unsigned n = 5;
    for (int i = 0; i < n; i++) {
        printf("%d\n", i);
    }
    return 0;
}
EOF
cat > c-err/main.c <<'EOF'
#include <stdio.h>
#include <string.h>

struct point { int x; int y; };

static int area(struct point p) {
    return p.x * p.z;
}

int main(void) {
    struct point p = { 1, 2 };
    char *name = 42;
    printf("%d %s\n", area(p), name);
    return count_items(name)
}
EOF
for m in c-make c-make-ok; do
cat > $m/Makefile <<'EOF'
CC ?= cc
CFLAGS = -Wall -O2

app: main.o util.o
	$(CC) -o app main.o util.o

%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@

clean:
	rm -f app *.o
EOF
cat > $m/main.c <<'EOF'
#include <stdio.h>
int scale(int v);
int main(void) { int spare; printf("%d\n", scale(4)); return 0; }
EOF
done
cat > c-make/util.c <<'EOF'
int scale(int v) {
    return v * factor;
}
EOF
cat > c-make-ok/util.c <<'EOF'
int scale(int v) { return v * 3; }
EOF
mkdir -p cm-ok cm-err
for m in cm-ok cm-err; do
cp c-make-ok/main.c c-make-ok/util.c $m/
cat > $m/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(demo C)
add_executable(app main.c util.c)
target_compile_options(app PRIVATE -Wall)
EOF
done
cp c-make/util.c cm-err/util.c

# ---------------------------------------------------------------- Go
rm -rf go-ok go-err go-vet
for m in go-ok go-err; do
mkdir -p $m/cmd/api $m/internal/store
( cd $m && go mod init example.com/$m >/dev/null 2>&1 )
cat > $m/internal/store/store.go <<'EOF'
package store

import "fmt"

type Store struct{ items map[string]int }

func New() *Store { return &Store{items: map[string]int{}} }

func (s *Store) Put(k string, v int) { s.items[k] = v }

func (s *Store) Dump() { fmt.Printf("%d items\n", len(s.items)) }
EOF
cat > $m/cmd/api/main.go <<'EOF'
package main

import (
	"fmt"

	"example.com/MOD/internal/store"
)

func main() {
	s := store.New()
	s.Put("a", 1)
	s.Dump()
	fmt.Println("ready")
}
EOF
sed -i "s|MOD|$m|" $m/cmd/api/main.go
done
cat > go-err/cmd/api/main.go <<'EOF'
package main

import (
	"fmt"
	"os"

	"example.com/go-err/internal/store"
)

func main() {
	s := store.New()
	s.Put("a", "one")
	startSever(s)
	fmt.Printf("%d items\n", "many")
}
EOF
cat > go-err/internal/store/extra.go <<'EOF'
package store

import "fmt"

func (s *Store) Report() {
	fmt.Printf("%s has %d\n", len(s.items))
	return
	fmt.Println("unreachable")
}
EOF

# go vet: the same module with the compile errors fixed, vet findings left in
rm -rf go-vet && cp -r go-err go-vet
sed -i 's/go-err/go-vet/' go-vet/go.mod go-vet/cmd/api/main.go
sed -i 's/s.Put("a", "one")/s.Put("a", 1)/; s/startSever(s)/_ = s/; /^\t"os"$/d' go-vet/cmd/api/main.go

# ---------------------------------------------------------------- Python
rm -rf py-ok py-err
mkdir -p py-ok/app py-err/app
cat > py-ok/app/__init__.py <<'EOF'
EOF
cat > py-ok/app/core.py <<'EOF'
def total(values: list[int]) -> int:
    return sum(values)


def label(n: int) -> str:
    return f"n={n}"
EOF
cp py-ok/app/__init__.py py-err/app/
cat > py-err/app/core.py <<'EOF'
import os
import sys
from typing import Optional

def total(values: list[int]) -> int:
    result: str = sum(values)
    return result

def label(n: int) -> str:
    unused = 3
    return n + "x"

def find(items, key) -> Optional[int]:
    if key == None:
        return None
    return items.index(key)
EOF
cat > py-err/app/cli.py <<'EOF'
from app.core import total, label
def main():
  x = total([1,2,3])
  print(label(x) , undefined_name)
EOF
# py-orders: a package with tests, for the linters' repeated messages (mypy --strict, pylint,
# ruff with every rule)
rm -rf py-orders && mkdir -p py-orders/app py-orders/tests && : > py-orders/app/__init__.py
cat > py-orders/app/orders.py <<'EOF'
import os, sys, json
from dataclasses import dataclass
from typing import Optional


@dataclass
class Order:
    id: int
    customer: str
    total: float
    discount: Optional[float] = None


def apply_discount(order: Order, pct: float) -> Order:
    if pct < 0 or pct > 100:
        raise ValueError(f"discount out of range: {pct}")
    order.discount = order.total * pct / 100
    return order


def net_total(order: Order) -> float:
    return order.total - order.discount


def parse_orders(text: str) -> list[Order]:
    rows = json.loads(text)
    return [Order(r["id"], r["customer"], r["total"]) for r in rows]


def summarize(orders: list[Order]) -> dict[str, float]:
    out: dict[str, float] = {}
    for o in orders:
        out[o.customer] = out.get(o.customer, 0) + net_total(o)
    return out


def load(path: str) -> list[Order]:
    with open(path) as f:
        return parse_orders(f.read())


def count(orders: list[Order]) -> str:
    return len(orders)
EOF
cat > py-orders/tests/test_orders.py <<'EOF'
import pytest
from app.orders import Order, apply_discount, net_total, parse_orders, summarize


def test_apply_discount():
    o = apply_discount(Order(1, "ann", 200.0), 10)
    assert o.discount == 20.0


def test_net_total_without_discount():
    assert net_total(Order(2, "bob", 50.0)) == 50.0


def test_parse_orders():
    orders = parse_orders('[{"id": 1, "customer": "ann", "total": 10.5}]')
    assert orders == [Order(1, "ann", 10.5)]


def test_summarize():
    orders = [apply_discount(Order(i, "ann" if i % 2 else "bob", 100.0), 5) for i in range(6)]
    assert summarize(orders) == {"ann": 285.0, "bob": 280.0}


@pytest.mark.parametrize("pct", [-1, 101, 250])
def test_discount_range(pct):
    with pytest.raises(ValueError):
        apply_discount(Order(1, "ann", 10.0), pct)


@pytest.mark.parametrize("n", range(40))
def test_many(n):
    assert net_total(apply_discount(Order(n, "c", 100.0), n)) == 100.0 - n


def test_parse_bad():
    parse_orders("{not json")
EOF


# ---------------------------------------------------------------- JavaScript / TypeScript
# Tools come from npm into $d/js/node_modules (see the header).
mkdir -p js
cd js
[ -f package.json ] || npm init -y >/dev/null
rm -rf ts-ok ts-err web-ok web-err lint-ok lint-err
mkdir -p ts-ok/src ts-err/src web-ok/src web-err/src lint-ok/src lint-err/src
for m in ts-ok ts-err; do
cat > $m/tsconfig.json <<'EOF'
{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "outDir": "dist", "rootDir": "src", "types": [] }, "include": ["src"] }
EOF
done
for m in ts-ok ts-err; do
  printf '{ "name": "%s", "version": "1.0.0", "private": true, "scripts": { "build": "tsc -p ." } }\n' $m > $m/package.json
  ln -sfn ../node_modules $m/node_modules
done
cat > ts-ok/src/index.ts <<'EOF'
export function total(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
export const label = (n: number): string => `n=${n}`;
EOF
cat > ts-err/src/index.ts <<'EOF'
import { formatUser } from "./user";

interface Order { id: number; amount: number; customer?: string }

export function total(orders: Order[]): number {
  let sum: string = 0;
  for (const o of orders) {
    sum += o.amount;
  }
  return sum;
}

export function describe(o: Order): string {
  return o.customer.toUpperCase() + formatUser(o.id);
}
EOF
cat > ts-err/src/user.ts <<'EOF'
export function formatUser(name: string): string {
  return name.trim();
}
export const admin = formatUser({ name: "root" });
EOF
for m in web-ok web-err; do
cat > $m/src/index.js <<'EOF'
import { greet } from "./greet.js";
document.body.textContent = greet("world");
EOF
cat > $m/src/greet.js <<'EOF'
export const greet = (who) => `hello ${who}`;
EOF
cat > $m/index.html <<'EOF'
<!doctype html><html><body><script type="module" src="/src/index.js"></script></body></html>
EOF
cat > $m/webpack.config.cjs <<'EOF'
module.exports = { mode: "production", entry: "./src/index.js" };
EOF
cat > $m/tsdown.config.mjs <<'EOF'
export default { entry: ["./src/index.js"], format: ["esm"] };
EOF
done
cat > web-err/src/index.js <<'EOF'
import { greet } from "./greet.js";
import pad from "left-pad";
import { shout } from "./missing.js";
document.body.textContent = pad(greet("world"), 20) + shout();
EOF
cat > lint-ok/src/index.js <<'EOF'
export function add(a, b) {
  return a + b;
}
EOF
cat > lint-err/src/index.js <<'EOF'
export function process(items) {
  var count = 0
  for (let i = 0; i < items.length; i++) {
    if (items[i] == null) { debugger; continue }
    count++
  }
  const unused = 42;
  console.log("count", count);
  return count
}
EOF
cat > lint-err/src/util.js <<'EOF'
export const isEmpty = (s) => s == "";
export function parse(json) {
  try { return JSON.parse(json) } catch (e) {}
}
EOF
for m in lint-ok lint-err; do
cat > $m/eslint.config.mjs <<'EOF'
import js from "@eslint/js";
export default [js.configs.recommended, { rules: { eqeqeq: "error", "no-console": "warn", "no-var": "error" },
  languageOptions: { globals: { console: "readonly" } } }];
EOF
done
cat > lint-ok/biome.json <<'EOF2'
{ "formatter": { "indentStyle": "space" } }
EOF2
npm pkg set type=module
cd ..

echo "demo projects in $d"

# ---------------------------------------------------------------- JVM (mvn from Debian; gradle from apt)
cd "$d"
rm -rf mvn-demo gradle-demo gradle-ok
mkdir -p mvn-demo/src/main/java/com/example gradle-demo/src/main/java/com/example gradle-ok/src/main/java/com/example
cat > mvn-demo/pom.xml <<'EOF'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>inventory</artifactId>
  <version>1.0.0</version>
  <properties><maven.compiler.release>17</maven.compiler.release></properties>
</project>
EOF
cat > mvn-demo/src/main/java/com/example/App.java <<'EOF'
package com.example;
public class App {
    public static void main(String[] args) {
        int count = "three";
        System.out.println(missing(count));
    }
}
EOF
cp mvn-demo/src/main/java/com/example/App.java gradle-demo/src/main/java/com/example/
cat > gradle-ok/src/main/java/com/example/App.java <<'EOF'
package com.example;
public class App {
    @Deprecated static int old() { return 1; }
    public static void main(String[] args) {
        java.util.List raw = new java.util.ArrayList();
        raw.add("x");
        System.out.println(raw.size() + old());
    }
}
EOF
echo "apply plugin: 'java'" > gradle-demo/build.gradle
echo "apply plugin: 'java'" > gradle-ok/build.gradle

# ---------------------------------------------------------------- shell, monorepo, deno
rm -rf sh-demo turbo-demo deno-demo
mkdir -p sh-demo deno-demo
cat > sh-demo/deploy.sh <<'EOF'
#!/bin/bash
target=$1
files=$(ls $target/*.tar)
for f in $files; do
  cp $f /srv/releases/
done
if [ $target == "prod" ]; then
  echo "deployed to $target"
fi
EOF
cat > sh-demo/ok.sh <<'EOF'
#!/bin/sh
set -eu
echo "hello ${1:-world}"
EOF
cat > deno-demo/main.ts <<'EOF'
const unused = 1;
export function total(xs: number[]): number {
  let sum: number = "0";
  for (const x of xs) sum += x;
  return sum;
}
EOF
cat > deno-demo/ok.ts <<'EOF'
export const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
EOF
mkdir -p turbo-demo/packages/api turbo-demo/packages/web
cat > turbo-demo/package.json <<'EOF'
{ "name": "shop", "private": true, "packageManager": "npm@10.8.2", "workspaces": ["packages/*"] }
EOF
cat > turbo-demo/turbo.json <<'EOF'
{ "$schema": "https://turbo.build/schema.json", "tasks": { "build": { "outputs": ["dist/**"] } } }
EOF
cat > turbo-demo/packages/api/package.json <<'EOF'
{ "name": "api", "version": "1.0.0", "scripts": { "build": "node build.js" } }
EOF
cat > turbo-demo/packages/api/build.js <<'EOF'
console.log("bundling api");
console.warn("warning: api/src/db.ts uses a deprecated driver option `poolSize`");
console.log("api built: dist/index.js (12.4 kB)");
EOF
cat > turbo-demo/packages/web/package.json <<'EOF'
{ "name": "web", "version": "1.0.0", "scripts": { "build": "node build.js" } }
EOF
cat > turbo-demo/packages/web/build.js <<'EOF'
console.log("bundling web");
if (process.env.BREAK_WEB) {
  console.error("src/pages/cart.tsx(14,9): error TS2339: Property 'totl' does not exist on type 'Cart'.");
  process.exit(2);
}
console.log("web built: dist/app.js (88.1 kB)");
EOF
(cd turbo-demo && git init -q && git add -A && git -c user.email=d@e -c user.name=d commit -qm init)
