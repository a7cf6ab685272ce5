// A demo service's log: request lines, periodic slow-query warnings, a burst of
// identical connection errors, one stack trace. Deterministic (fake clock).
// usage: node logapp.js [plain|json] [lines]
const mode = process.argv[2] || 'plain';
const total = +(process.argv[3] || 400);
let t = Date.parse('2026-11-22T09:00:00Z');
const paths = ['/api/products', '/api/cart', '/health', '/api/orders'];
function out(level, msg, extra) {
  t += 137;
  const ts = new Date(t).toISOString();
  if (mode === 'json') console.log(JSON.stringify({ ts, level, msg, ...extra }));
  else console.log(`${ts} ${level.toUpperCase().padEnd(5)} ${msg}`);
}
out('info', 'api listening on :3000 (pid 41)');
out('info', 'connected to postgres at db:5432/shop');
for (let n = 1; n <= total; n++) {
  const p = paths[n % 4];
  out('info', `GET ${p} 200 ${(n * 7) % 40 + 3}ms`, { path: p });
  if (n % 90 === 0) out('warn', `slow query on orders: ${n * 11}ms (limit 500ms)`);
  if (n === 200) {
    for (let k = 0; k < 12; k++) out('error', 'redis: connect ECONNREFUSED 10.0.3.7:6379 (retry in 1000ms)');
    out('error', 'unhandled rejection: TypeError: Cannot read properties of undefined (reading \'total\')');
    console.log('    at computeCart (/app/src/cart.js:42:18)');
    console.log('    at async handler (/app/src/routes/cart.js:17:5)');
  }
  if (n === 260) out('warn', 'DeprecationWarning: Buffer() is deprecated due to security and usability issues');
}
out('info', 'SIGTERM received, draining connections');
out('info', 'shutdown complete');
