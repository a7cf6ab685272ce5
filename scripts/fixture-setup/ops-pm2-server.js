// Logs like a small web service: request lines, a slow-query warning now and then,
// and one failed upstream call with a stack trace.
let n = 0;
const paths = ['/api/products', '/api/cart', '/health'];
function tick() {
  n++;
  const p = paths[n % 3];
  console.log(`GET ${p} 200 ${(n * 7) % 40 + 3}ms`);
  if (n % 25 === 0) console.warn(`warn: slow query on orders (${n * 11}ms)`);
  if (n === 60) {
    const e = new Error('connect ECONNREFUSED 127.0.0.1:6380');
    console.error(`error: upstream cache unavailable: ${e.message}`);
    console.error(e.stack.split('\n').slice(0, 3).join('\n'));
  }
  if (n < 120) setImmediate(tick);
}
console.log('api listening on :3000');
tick();
setInterval(() => {}, 1 << 30);
