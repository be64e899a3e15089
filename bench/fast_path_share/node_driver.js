'use strict';
// bench/fast-path-share's node-soap driver: ordinary calls through the npm `soap` client built from ?wsdl.
// usage: NODE_PATH=tests/interop/node/node_modules node node_driver.js WSDL_URL 11|12 N COUNTER
// N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER), through
// port LatherSoap (11) or LatherSoap12 (12, forceSoap12Headers as tests/interop/node/soap_interop.js does).
const soap = require('soap');

async function main() {
  const [wsdl, version, countText, counter] = process.argv.slice(2);
  const v12 = version === '12';
  const port = v12 ? 'LatherSoap12' : 'LatherSoap';
  const client = await soap.createClientAsync(wsdl, { forceSoap12Headers: v12, wsdl_options: { proxy: false, timeout: 10000 } });
  const call = (op, args) => new Promise((resolve, reject) => {
    client.LatherService[port][op](args, (err, result) => (err ? reject(err) : resolve(result)),
                                   { timeout: 10000, proxy: false });
  });
  const count = Number(countText);
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const r = await call('Increment', { value: 41 + i });
    if (Number(r.result) !== 42 + i) failed++;
  }
  if ((await call('HelloWorld', {})).result !== 'Hello World') failed++;
  const first = (await call('IncCounter', { name: counter })).result;
  if (String((await call('GetCounter', { name: counter })).result) !== String(first)) failed++;
  console.log('node-soap: ' + (count + 3) + ' calls, ' + failed + ' wrong answers');
  return failed ? 1 : 0;
}

const watchdog = setTimeout(() => { console.log('node-soap: did not finish within 60 s'); process.exit(1); }, 60000);
main().then((code) => { clearTimeout(watchdog); process.exit(code); },
            (err) => { console.log('node-soap: ' + (err && err.stack ? err.stack : err)); process.exit(1); });
