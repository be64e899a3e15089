'use strict';
/*
 * The node_soap test service: the npm `soap` package (tests/interop/node/node_modules) serving ship.wsdl.
 *   GET  /ship/service?wsdl   ship.wsdl with __BASE__ replaced by this server's URL
 *   POST /ship/soap11         node-soap, SOAP 1.1 (port ShipSoap)
 *   POST /ship/soap12         node-soap with forceSoap12Headers (port ShipSoap12)
 * Usage: node server.js   (binds 127.0.0.1 on a free port, prints "listening PORT" once both are ready)
 * Every POST appends one line "PATH CONTENT-TYPE | SOAPACTION" to $LATHER_WSDL_LOG (the test counts them).
 * Exits on SIGTERM, and by itself after 10 minutes.
 */
const fs = require('fs');
const http = require('http');
const path = require('path');
const soap = require(path.join(__dirname, '..', '..', 'node', 'node_modules', 'soap'));

const RATE_PER_KG = { STANDARD: 4, EXPRESS: 10 };
const MAX_KG = 30;
let shipped = 0;

const asArray = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const fault = (soap12, code, reason, detail) => ({
  Fault: soap12
    ? { Code: { Value: 'soap:' + (code === 'Client' ? 'Sender' : 'Receiver') }, Reason: { Text: reason },
        Detail: detail, statusCode: 500 }
    : { faultcode: 'soap:' + code, faultstring: reason, detail: detail, statusCode: 500 },
});

// Ship(parcel) -> price = total box weight * rate of the service level (STANDARD 4, EXPRESS 10);
// more than 30 kg raises the declared TooHeavy fault.
function operations(soap12) {
  return {
    Ship(args) {
      const parcel = args.parcel;
      const boxes = asArray(parcel.box);
      const weight = boxes.reduce((sum, box) => sum + Number(box.weightKg), 0);
      if (weight > MAX_KG) {
        // $xml: node-soap copies the detail verbatim (its object form would put it in the envelope namespace).
        throw fault(soap12, 'Client', `Parcel too heavy: ${weight} kg (at most ${MAX_KG} kg)`,
                    { $xml: `<TooHeavy xmlns="urn:ship:v1"><maxKg>${MAX_KG}</maxKg><weightKg>${weight}</weightKg></TooHeavy>` });
      }
      const rate = RATE_PER_KG[parcel.service];
      if (rate === undefined) throw fault(soap12, 'Client', `unknown service level ${parcel.service}`);
      const insured = String((parcel.attributes || {}).insured) === 'true';
      shipped += 1;
      return { trackingId: 'TRK-' + shipped, boxes: boxes.length, weightKg: weight,
               price: Math.round(weight * rate * 100) / 100, city: parcel.to.address.city, insured };
    },
    Echo(args) { return { text: args.text }; },
  };
}

const logFile = process.env.LATHER_WSDL_LOG;
const wsdlTemplate = fs.readFileSync(path.join(__dirname, 'ship.wsdl'), 'utf8');
let wsdlText = '';
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/ship/service?wsdl')) {
    res.setHeader('Content-Type', 'text/xml; charset=utf-8');
    res.end(wsdlText);
    return;
  }
  res.statusCode = 404;
  res.end(`not found: ${req.method} ${req.url}\n`);
});

function countPost(type, data, req) {
  if (logFile && type === 'info' && typeof data === 'string' && data.startsWith('Handling POST')) {
    fs.appendFileSync(logFile, `${req.url} ${req.headers['content-type'] || '-'} | ${req.headers.soapaction || '-'}\n`);
  }
}

server.listen(0, '127.0.0.1', () => {
  // node-soap picks the port by the path of its soap:address, so it gets the WSDL with the real address.
  wsdlText = wsdlTemplate.replace(/__BASE__/g, `http://127.0.0.1:${server.address().port}`);
  let ready = 0;
  for (const soap12 of [false, true]) {
    const services = { Shipping: { ShipSoap: operations(false), ShipSoap12: operations(true) } };
    const listener = soap.listen(server, {
      path: soap12 ? '/ship/soap12' : '/ship/soap11', services, xml: wsdlText,
      forceSoap12Headers: soap12, suppressStack: true,
      callback: (err) => {
        if (err) { console.error('node-soap: ' + err); process.exit(1); }
        if (++ready === 2) console.log(`listening ${server.address().port}`);
      },
    });
    listener.log = countPost;
  }
});
process.on('SIGTERM', () => process.exit(0));
setTimeout(() => process.exit(0), 10 * 60 * 1000).unref();
