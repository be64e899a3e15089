#!/usr/bin/env node
'use strict';
/*
 * Interop test: drive a live lather-service with the npm `soap` client over SOAP 1.1 and SOAP 1.2.
 *
 * Usage: node tests/interop/node/soap_interop.js <path/to/lather-service>
 * (run tests/interop/node/install.sh first: it installs the locked `soap` package into node_modules).
 *
 * Starts the service on an ephemeral port with a SQLite store in a temporary directory, builds the
 * client from the live GET /soap?wsdl, calls every operation through the LatherSoap (SOAP 1.1) and
 * LatherSoap12 (SOAP 1.2, `forceSoap12Headers`) ports, then stops the service with SIGTERM and
 * expects exit status 0. Prints one line per check ("PASS name" or "FAIL name: what differed") and
 * finally "N passed, M failed"; exits non-zero on any failure.
 */

const childProcess = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

let soap;
try {
  soap = require('soap');
} catch (err) {
  console.log('FAIL the npm soap package is not installed (run tests/interop/node/install.sh): ' + err.message);
  process.exit(1);
}

const STARTUP_TIMEOUT_MS = 10000;
const HTTP_TIMEOUT_MS = 10000;
const SHUTDOWN_TIMEOUT_MS = 10000;
const WATCHDOG_MS = 50000;

const TNS = 'urn:lather:v1';
const OVERFLOW_REASON = 'Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow';

// port name -> label, client options, expected response media type, fault code, fault HTTP status
const PORTS = {
  LatherSoap: { label: 'SOAP 1.1', options: {}, media: 'text/xml', code: 'Client', status: 500 },
  // node-soap (up to 1.13.0 at least) maps a response onto the WSDL's schema types only when its envelope
  // is SOAP 1.1 (lib/wsdl/index.js: ENV_URI is the 1.1 namespace only); a SOAP 1.2 response comes back
  // with every simple value as its lexical string. For that port the strings are parsed strictly here.
  LatherSoap12: { label: 'SOAP 1.2', options: { forceSoap12Headers: true }, media: 'application/soap+xml',
                  code: 'Sender', status: 400, untyped: true },
};

let passed = 0;
let failed = 0;

function record(name, ok, detail) {
  if (ok) {
    passed += 1;
    console.log('PASS  ' + name);
  } else {
    failed += 1;
    console.log('FAIL  ' + name + (detail ? ': ' + detail : ''));
  }
}

// Runs fn() (may be async); it returns undefined/true (pass) or a non-empty string (fail, with what
// differed). A thrown error is a failure too.
async function check(name, fn) {
  let outcome;
  try {
    outcome = await fn();
  } catch (err) {
    record(name, false, 'raised ' + (err && err.message ? err.message.split('\n')[0] : String(err)));
    return;
  }
  if (outcome === undefined || outcome === null || outcome === true) record(name, true);
  else record(name, false, String(outcome));
}

const show = (v) => (v instanceof Date ? 'Date(' + v.toISOString() + ')' : JSON.stringify(v));

function expectEqual(actual, expected) {
  if (actual !== expected) return 'got ' + show(actual) + ' (' + typeof actual + '), expected ' + show(expected);
  return undefined;
}

// Strict xsd lexical -> JavaScript value, for what node-soap leaves as a string (SOAP 1.2 responses).
// A value that is not the lexical form of its type becomes a marker string, which never compares equal.
const XSD_PARSERS = {
  int: (t) => (/^[+-]?\d+$/.test(t) ? Number(t) : undefined),
  long: (t) => (/^[+-]?\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : undefined),
  unsignedInt: (t) => (/^\+?\d+$/.test(t) ? t.replace(/^\+/, '') : undefined), // node-soap keeps it a string
  double: (t) => (/^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|-?INF|NaN)$/.test(t)
    ? Number(t.replace('INF', 'Infinity')) : undefined),
  boolean: (t) => ({ true: true, 1: true, false: false, 0: false })[t],
  dateTime: (t) => (/^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?$/.test(t) ? new Date(t) : undefined),
  string: (t) => t,
};

function converter(untyped) {
  return (type, value) => {
    if (!untyped || typeof value !== 'string') return value;
    const parsed = XSD_PARSERS[type](value);
    return parsed === undefined ? 'not an xsd:' + type + ': ' + JSON.stringify(value) : parsed;
  };
}

// ---------------------------------------------------------------------------------------------
// Service process handling

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readLog(logPath) {
  try {
    return fs.readFileSync(logPath, 'utf8').slice(-4000);
  } catch (err) {
    return '(no log)';
  }
}

async function startService(binary, workdir) {
  const portFile = path.join(workdir, 'port');
  const logPath = path.join(workdir, 'service.log');
  const logFd = fs.openSync(logPath, 'w');
  const proc = childProcess.spawn(binary,
    ['--listen', '127.0.0.1:0', '--store', 'sqlite:' + path.join(workdir, 'c.db'), '--port-file', portFile,
     '--threads', '2'],
    { stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  let exited = null;
  proc.on('exit', (code, signal) => { exited = { code, signal }; });
  proc.on('error', (err) => { exited = { code: null, signal: null, error: err }; });
  proc.exitInfo = () => exited;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error('service exited early (' + JSON.stringify(exited) + '); log:\n' + readLog(logPath));
    }
    let text = '';
    try {
      text = fs.readFileSync(portFile, 'ascii');
    } catch (err) { /* not written yet */ }
    if (text.endsWith('\n') && /^\d+$/.test(text.trim())) return { proc, port: Number(text.trim()), logPath };
    await sleep(50);
  }
  proc.kill('SIGKILL');
  throw new Error('no port file after ' + STARTUP_TIMEOUT_MS + ' ms; log:\n' + readLog(logPath));
}

// SIGTERM, bounded wait; resolves to the exit code (null if it had to be killed or died of a signal).
async function stopService(proc) {
  if (!proc.exitInfo()) {
    proc.kill('SIGTERM');
    const deadline = Date.now() + SHUTDOWN_TIMEOUT_MS;
    while (!proc.exitInfo() && Date.now() < deadline) await sleep(50);
    if (!proc.exitInfo()) {
      proc.kill('SIGKILL');
      const killDeadline = Date.now() + SHUTDOWN_TIMEOUT_MS;
      while (!proc.exitInfo() && Date.now() < killDeadline) await sleep(50);
      return null;
    }
  }
  return proc.exitInfo().code;
}

// ---------------------------------------------------------------------------------------------
// Calling through one port of one client

// Calls client.LatherService[port][op] and resolves to { result, raw } or rejects with the soap error.
function call(client, port, op, args) {
  return new Promise((resolve, reject) => {
    const method = client.LatherService[port][op];
    method(args, (err, result, raw) => {
      if (err) reject(err);
      else resolve({ result, raw });
    }, { timeout: HTTP_TIMEOUT_MS, proxy: false });
  });
}

function mediaType(contentType) {
  return String(contentType || '').split(';', 1)[0].trim().toLowerCase();
}

// The fault's code (local name) and reason text, from the parsed envelope node-soap attaches.
function faultOf(err) {
  const fault = err && err.root && err.root.Envelope && err.root.Envelope.Body && err.root.Envelope.Body.Fault;
  if (!fault) return null;
  const text = (v) => (v && typeof v === 'object' && '$value' in v ? v.$value : v);
  if (fault.faultcode !== undefined) {
    return { code: String(text(fault.faultcode)).split(':').pop(), reason: text(fault.faultstring) };
  }
  const code = fault.Code && text(fault.Code.Value);
  const reasonText = fault.Reason && fault.Reason.Text;
  const reason = Array.isArray(reasonText) ? text(reasonText[0]) : text(reasonText);
  return { code: String(code).split(':').pop(), reason };
}

// ---------------------------------------------------------------------------------------------
// Test data and comparison

function sample(firstname, lastname, city, zip, email, contactNos, designation, experience, salary, companies,
                dateOfBirth, isMarried, children) {
  return {
    firstname, lastname, city, zip, email,
    contactNos: { item: contactNos },
    designation, experience, salary,
    companiesWorkedFor: { item: companies },
    dateOfBirth, isMarried,
    children: { sample: children },
  };
}

// dateTimes are sent as xsd:dateTime strings with an explicit zone (node-soap sends strings as they
// are; a JavaScript Date would go out as UTC and lose the zone) and with millisecond precision,
// which is what a JavaScript Date, node-soap's type for a received xsd:dateTime, can hold.
function buildSamples() {
  const grandchild = sample('Åsa', 'Ærøskøbing-Møller', 'Ærøskøbing', 5970, 'asa@example.dk', [], 'Lærling', 0, 0.1,
    [], '2015-01-02T03:04:05.250Z', false, []);
  const child1 = sample('Léa', 'Müller', 'Zürich', 8001, 'lea.mueller@example.ch', ['+41 44 000 00 00'],
    'Schülerin', 1, 1234.5678, ['Kinderkrippe Zürich'], '2010-06-15T08:30:00+02:00', false, [grandchild]);
  const child2 = sample('Taro', '山田', '東京', 1000001, 'taro@example.jp', ['03-0000-0000', '090-0000-0000'],
    '学生', 2, -0.5, [], '2012-12-31T23:59:59.999+09:00', true, []);
  return [
    sample('Jürgen', 'Ørsted', 'Zürich', 8001, 'juergen@example.ch', [],
      'Senior <Engineer> & "Architect" \'Ü\'', 17, 1234.5678, ['Ærø Shipping A/S', '東京電力', 'Müller & Söhne <GmbH>'],
      '1980-02-29T13:45:30.123+02:00', true, [child1, child2]),
    sample('Hanako', '山田', '東京', 4294967295, 'hanako@example.jp', ['+81 3 0000 0000'],
      '部長', 0, 0.1, [], '1975-07-01T00:00:00-05:30', true, []),
    sample('Søren', 'Kierkegaard', 'Ærøskøbing', 0, 'soren@example.dk',
      ['+45 00 00 00 00', '+45 11 11 11 11', '+45 22 22 22 22'], 'Filosof', -1, 3.0e10,
      ['Universitetet', 'Københavns Universitet'], '1813-05-05T12:00:00.500+01:00', false, []),
  ];
}

// What node-soap hands back for a repeated element: an array for 2+, the object itself for 1, and
// nothing (or an empty object for the empty container element) for 0. Normalised to an array here.
function asList(value) {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

const FIELDS = ['firstname', 'lastname', 'city', 'zip', 'email', 'contactNos', 'designation', 'experience',
  'salary', 'companiesWorkedFor', 'dateOfBirth', 'isMarried', 'children'];

function compareSamples(sent, got, where, diffs, conv) {
  const list = asList(got);
  if (list.length !== sent.length) {
    diffs.push(where + ': ' + list.length + ' samples, expected ' + sent.length);
    return;
  }
  sent.forEach((s, i) => compareSample(s, list[i], where + '[' + i + ']', diffs, conv));
}

function compareSample(sent, got, where, diffs, conv) {
  if (!got || typeof got !== 'object') {
    diffs.push(where + ': expected a sample, got ' + show(got));
    return;
  }
  const keys = Object.keys(got).filter((k) => k !== 'attributes');
  const present = FIELDS.filter((k) => k in got);
  if (present.join(',') !== keys.join(',')) diffs.push(where + ': fields ' + keys.join(',') + ', expected ' + FIELDS.join(','));
  const same = (field, actual, expected) => {
    if (actual !== expected) {
      diffs.push(where + '.' + field + ': ' + show(actual) + ' (' + typeof actual + '), expected ' + show(expected));
    }
  };
  for (const field of ['firstname', 'lastname', 'city', 'email', 'designation']) same(field, got[field], sent[field]);
  // node-soap has no xsd:unsignedInt deserializer: it hands back the lexical value as a string.
  same('zip', conv('unsignedInt', got.zip), String(sent.zip));
  same('experience', conv('int', got.experience), sent.experience);
  same('salary', conv('double', got.salary), sent.salary);
  same('isMarried', conv('boolean', got.isMarried), sent.isMarried);
  const dateOfBirth = conv('dateTime', got.dateOfBirth);
  if (!(dateOfBirth instanceof Date)) {
    diffs.push(where + '.dateOfBirth: ' + show(dateOfBirth) + ', expected a Date');
  } else if (dateOfBirth.getTime() !== Date.parse(sent.dateOfBirth)) {
    diffs.push(where + '.dateOfBirth: ' + show(dateOfBirth) + ', expected the instant ' + sent.dateOfBirth);
  }
  for (const field of ['contactNos', 'companiesWorkedFor']) {
    const items = asList(got[field] && got[field].item);
    if (JSON.stringify(items) !== JSON.stringify(sent[field].item)) {
      diffs.push(where + '.' + field + ': ' + show(items) + ', expected ' + show(sent[field].item));
    }
  }
  compareSamples(sent.children.sample, got.children && got.children.sample, where + '.children', diffs, conv);
}

// The dateOfBirth values of a message in document order, as the raw XML has them.
function rawDates(xml) {
  return Array.from(String(xml).matchAll(/<(?:[\w.-]+:)?dateOfBirth>([^<]*)</g), (m) => m[1]);
}

function sentDates(samples) {
  const out = [];
  const walk = (list) => list.forEach((s) => { out.push(s.dateOfBirth); walk(s.children.sample); });
  walk(samples);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checks

async function portChecks(client, portName, port) {
  const { label, code: wantCode, media, status: faultStatus, untyped } = PORTS[portName];
  const invoke = (op, args) => call(client, portName, op, args);
  const conv = converter(untyped);

  await check(label + ': WSDL port address is the live address', () => {
    const location = client.wsdl.services.LatherService.ports[portName].location;
    return expectEqual(location, 'http://127.0.0.1:' + port + '/soap');
  });
  await check(label + ': Increment(41) == 42', async () => expectEqual(conv('int', (await invoke('Increment', { value: 41 })).result.result), 42));
  await check(label + ': response Content-Type is ' + media,
    () => expectEqual(mediaType(client.lastResponseHeaders && client.lastResponseHeaders['content-type']), media));
  await check(label + ': Increment(-1) == 0', async () => expectEqual(conv('int', (await invoke('Increment', { value: -1 })).result.result), 0));
  await check(label + ': Increment(2147483647) is a ' + wantCode + ' fault with the service\'s reason', async () => {
    let value;
    try {
      value = (await invoke('Increment', { value: 2147483647 })).result;
    } catch (err) {
      const fault = faultOf(err);
      if (!fault) return 'error without a SOAP Fault: ' + err.message;
      const problems = [];
      if (fault.code !== wantCode) problems.push('fault code ' + show(fault.code) + ', expected ' + wantCode);
      if (fault.reason !== OVERFLOW_REASON) problems.push('reason ' + show(fault.reason) + ', expected ' + show(OVERFLOW_REASON));
      const httpStatus = err.response && err.response.status;
      if (httpStatus !== faultStatus) problems.push('HTTP ' + httpStatus + ', expected ' + faultStatus);
      return problems.join('; ') || undefined;
    }
    return 'no fault raised; returned ' + show(value);
  });
  await check(label + ': HelloWorld() == "Hello World"',
    async () => expectEqual((await invoke('HelloWorld', {})).result.result, 'Hello World'));

  const name = 'node-' + portName + '-' + crypto.randomUUID();
  await check(label + ': IncCounter twice on a fresh name gives 1, 2 and GetCounter gives 2', async () => {
    const values = [(await invoke('IncCounter', { name })).result.result, (await invoke('IncCounter', { name })).result.result,
      (await invoke('GetCounter', { name })).result.result].map((v) => conv('long', v));
    return values.join(',') === '1,2,2' && values.every((v) => typeof v === 'number')
      ? undefined : 'IncCounter, IncCounter, GetCounter gave ' + show(values) + ', expected [1,2,2]';
  });
  await check(label + ': GetCounter on an unknown name == 0',
    async () => expectEqual(conv('long', (await invoke('GetCounter', { name: 'node-unknown-' + crypto.randomUUID() })).result.result), 0));

  await check(label + ': EchoDataSamples echoes 3 samples (nested, non-ASCII, zoned dateTime, double, boolean)', async () => {
    const sent = buildSamples();
    const { result, raw } = await invoke('EchoDataSamples', { samples: { sample: sent } });
    const diffs = [];
    compareSamples(sent, result && result.samples && result.samples.sample, 'samples', diffs, conv);
    // The zone itself: node-soap turns xsd:dateTime into a Date (an instant), so check the wire too.
    const got = rawDates(raw);
    const want = sentDates(sent);
    if (got.length !== want.length) diffs.push('raw response has ' + got.length + ' dateOfBirth, expected ' + want.length);
    got.forEach((text, i) => {
      if (!/(Z|[+-]\d\d:\d\d)$/.test(text)) diffs.push('raw dateOfBirth[' + i + '] ' + show(text) + ' has no time zone');
      else if (Date.parse(text) !== Date.parse(want[i])) diffs.push('raw dateOfBirth[' + i + '] ' + show(text) + ' is not the instant ' + want[i]);
    });
    if (!String(raw).includes('東京電力') || !String(raw).includes('Müller &amp; Söhne &lt;GmbH&gt;')) {
      diffs.push('raw response lacks the non-ASCII / escaped company names');
    }
    return diffs.length ? diffs.length + ' difference(s): ' + diffs.slice(0, 10).join('; ') : undefined;
  });
  await check(label + ': EchoDataSamples with no samples echoes none', async () => {
    const { result } = await invoke('EchoDataSamples', { samples: {} });
    const list = asList(result && result.samples && result.samples.sample);
    return list.length === 0 ? undefined : 'got ' + show(list);
  });
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: node soap_interop.js <path/to/lather-service>');
    return 2;
  }
  const binary = path.resolve(process.argv[2]);
  console.log('node ' + process.version + ', soap ' + require('soap/package.json').version);
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'lather-node-'));
  let service;
  try {
    try {
      service = await startService(binary, workdir);
    } catch (err) {
      record('service starts and writes its port file', false, err.message);
      return 1;
    }
    console.log('service started on port ' + service.port + ' (pid ' + service.proc.pid + ')');
    const watchdog = setTimeout(() => {
      console.log('FAIL  test did not finish within ' + WATCHDOG_MS + ' ms');
      service.proc.kill('SIGKILL');
      process.exit(1);
    }, WATCHDOG_MS);
    try {
      const wsdlUrl = 'http://127.0.0.1:' + service.port + '/soap?wsdl';
      for (const portName of Object.keys(PORTS)) {
        let client;
        try {
          client = await soap.createClientAsync(wsdlUrl, { ...PORTS[portName].options, wsdl_options: { proxy: false, timeout: HTTP_TIMEOUT_MS } });
          record(PORTS[portName].label + ': client built from the live ?wsdl', true);
        } catch (err) {
          record(PORTS[portName].label + ': client built from the live ?wsdl', false, err.message);
          continue;
        }
        await portChecks(client, portName, service.port);
      }
    } finally {
      clearTimeout(watchdog);
      const status = await stopService(service.proc);
      record('service exits 0 on SIGTERM', status === 0, 'exit status ' + status + '; log tail:\n' + readLog(service.logPath));
    }
  } finally {
    fs.rmSync(workdir, { recursive: true, force: true });
  }
  console.log(passed + ' passed, ' + failed + ' failed');
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  console.log('FAIL  unexpected error: ' + (err && err.stack ? err.stack : err));
  process.exit(1);
});
