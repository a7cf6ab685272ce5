#!/usr/bin/env bash
# Starts throw-away database servers on loopback for the database/* and service/*
# fixtures (all data under $1, default /tmp/ops-fx):
#   PostgreSQL on 127.0.0.1:55432 (db "shop", tables customers/orders)
#   Redis on 127.0.0.1:56379 (a few keys)
#   MariaDB on 127.0.0.1:53306 (db "shop", same tables)
#   an SQLite file $1/shop.db
# Stop them with: scripts/fixture-setup/ops-servers.sh --stop [DIR]
set -euo pipefail
if [ "${1:-}" = "--stop" ]; then
  d=${2:-/tmp/ops-fx}
  su postgres -c "pg_ctl -D $d/pg stop -m fast" || true
  redis-cli -p 56379 shutdown nosave || true
  [ -f "$d/maria.pid" ] && kill "$(cat "$d/maria.pid")" || true
  exit 0
fi
d=${1:-/tmp/ops-fx}
mkdir -p "$d"
SQL="
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), email VARCHAR(60), country VARCHAR(2));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total DECIMAL(8,2), status VARCHAR(12));
INSERT INTO customers VALUES (1,'Ada Lovelace','ada@example.com','GB'),(2,'Grace Hopper','grace@example.com','US'),(3,'Linus Torvalds','linus@example.com','FI'),(4,'Margaret Hamilton','margaret@example.com','US');
INSERT INTO orders VALUES (101,1,19.99,'shipped'),(102,2,5.00,'pending'),(103,2,42.50,'shipped'),(104,4,7.25,'cancelled');
"
# PostgreSQL (runs as the postgres user when we are root)
if [ ! -d "$d/pg" ]; then
  mkdir -p "$d/pg" && chown postgres "$d" "$d/pg" 2>/dev/null || true
  su postgres -c "initdb -D $d/pg -U postgres -A trust" >/dev/null
fi
su postgres -c "pg_ctl -D $d/pg -o '-p 55432 -k $d -c listen_addresses=127.0.0.1' -l $d/pg.log start" >/dev/null || true
sleep 2
psql -h 127.0.0.1 -p 55432 -U postgres -c "CREATE DATABASE shop" >/dev/null 2>&1 || true
psql -h 127.0.0.1 -p 55432 -U postgres -d shop -c "$SQL" >/dev/null 2>&1 || true
for i in $(seq 1 300); do echo "INSERT INTO events VALUES ($i, 'page_view', '/products/$((i % 17))');"; done > "$d/events.sql"
psql -h 127.0.0.1 -p 55432 -U postgres -d shop -c "CREATE TABLE IF NOT EXISTS events (id INT, kind TEXT, path TEXT)" >/dev/null 2>&1 || true
psql -h 127.0.0.1 -p 55432 -U postgres -d shop -c "TRUNCATE events" -f "$d/events.sql" >/dev/null 2>&1 || true
# Redis
redis-server --port 56379 --bind 127.0.0.1 --daemonize yes --dir "$d" --save "" >/dev/null
sleep 1
redis-cli -p 56379 mset session:1 ada session:2 grace cart:1 3 >/dev/null
redis-cli -p 56379 rpush queue:emails a@example.com b@example.com >/dev/null
# MariaDB (root over the socket $d/maria.sock)
if [ ! -d "$d/maria" ]; then
  mariadb-install-db --datadir="$d/maria" --user=root >/dev/null 2>&1
fi
(mariadbd --datadir="$d/maria" --user=root --port=53306 --bind-address=127.0.0.1 --socket="$d/maria.sock" --pid-file="$d/maria.pid" >"$d/maria.log" 2>&1 &)
for i in $(seq 1 30); do mariadb -S "$d/maria.sock" -u root -e "select 1" >/dev/null 2>&1 && break; sleep 1; done
mariadb -S "$d/maria.sock" -u root -e "CREATE DATABASE IF NOT EXISTS shop; USE shop; DROP TABLE IF EXISTS customers, orders; $SQL"
# SQLite
rm -f "$d/shop.db"
sqlite3 "$d/shop.db" "$SQL"
echo "servers up under $d"
