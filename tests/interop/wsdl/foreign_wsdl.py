#!/usr/bin/python3
"""lather-call --wsdl and lather-stress --wsdl against foreign SOAP services read from their WSDL alone.

Usage: /usr/bin/python3 tests/interop/wsdl/foreign_wsdl.py BUILD_DIR SERVICE
  BUILD_DIR holds client/lather-call and stress/lather-stress.
  SERVICE is one of
    php-shop   PHP SoapServer, document/literal wrapped, imported XSD, SOAP 1.1 + 1.2 ports (php_shop/)
    php-rpc    PHP SoapServer, rpc/literal, SOAP 1.1 + 1.2 ports (php_rpc/)
    node-soap  the npm soap package, document/literal, SOAP 1.1 + 1.2 ports (node_soap/)
    asmx       an ASMX service in Mono's ASP.NET, the WSDL Mono generates (asmx/)
    refusals   broken WSDLs (refusals/) and a URL nobody listens on: clear one-line refusals

It starts the service (servers.py) on a free 127.0.0.1 port, runs the checks (checks.py), stops the
service by its PID. Prints "ok: ..." per check and "FAIL: ..." per failed one; exits 1 if any failed,
77 (skipped) when the service's runtime (php, node, mono) is not installed.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402
from checks import Checks, number_is, text_of  # noqa: E402

WHOLE_TEST_TIMEOUT_S = 115  # CTest gives 120


def php_shop(c):
    base = c.server.wsdl_url.split("/shop/")[0]
    actions = {op: f"urn:shop:v1#{op}" for op in ("PlaceOrder", "GetStatus", "Ping")}
    listed = c.list_ports({"ShopSoap": ("1.1", "ShopSoap", base + "/shop/soap11", actions),
                           "ShopSoap12": ("1.2", "ShopSoap12", base + "/shop/soap12", actions)}, "document")
    c.input_fields(listed, "ShopSoap", "PlaceOrder", {"order": True})
    c.input_fields(listed, "ShopSoap", "GetStatus", {"orderId": True})

    order = ["order.@currency=EUR", "order.customer.name=Ada Lovelace",
             "order.customer.address.street=1 Rue de Rivoli", "order.customer.address.city=Paris",
             "order.customer.address.country=FR",
             "order.item[0].sku=A-1", "order.item[0].qty=3", "order.item[0].price=2.50",
             "order.item[1].sku=B-2", "order.item[1].qty=2", "order.item[1].price=1.20"]

    def confirmation(total, currency, lines, city, status):
        def test(doc):
            conf = doc["confirmation"]
            return (number_is(text_of(conf["total"]), total) and number_is(conf["lines"], lines)
                    and conf["city"] == city and conf["status"] == status
                    and conf["orderId"].startswith("ORD-")
                    and (not isinstance(conf["total"], dict) or conf["total"].get("@currency") == currency))
        return test

    doc = c.answer("PlaceOrder (nested customer/address, 2 items, @currency, enum): total 3*2.50 + 2*1.20 = 9.9",
                   c.call("PlaceOrder", *order, "order.status=PAID"),
                   confirmation(9.9, "EUR", 2, "Paris", "PAID"))
    c.last_post("PlaceOrder went to the first SOAP 1.1 port (ShopSoap)", "/shop/soap11", "text/xml")
    if doc:
        order_id = doc["confirmation"]["orderId"]
        c.answer(f"GetStatus({order_id}) = PAID, as placed", c.call("GetStatus", f"orderId={order_id}"),
                 lambda d: d == {"status": "PAID"})
    c.answer("Ping() = pong (an empty input)", c.call("Ping"), lambda d: d == {"message": "pong"})

    r = c.call("PlaceOrder", *order, json_out=False)
    c.check("PlaceOrder without --json: an indented tree (confirmation: / '  city: Paris' / '  lines: 2')",
            r.rc == 0 and "confirmation:" in r.out.splitlines()
            and "  city: Paris" in r.out.splitlines() and "  lines: 2" in r.out.splitlines(), r)

    path = os.path.join(c.server.work, "order.json")
    with open(path, "w") as f:
        json.dump({"order": {"@currency": "USD",
                             "customer": {"name": "Bob", "address": {"street": "2 Main St", "city": "Boston",
                                                                     "country": "US"}},
                             "item": [{"sku": "C-3", "qty": 4, "price": 0.25}, {"sku": "D-4", "qty": 1, "price": 10},
                                      {"sku": "E-5", "qty": 10, "price": 0.1}],
                             "status": "SHIPPED"}}, f)
    c.answer("PlaceOrder -f order.json (3 items as a JSON array): total 4*0.25 + 10 + 10*0.1 = 12",
             c.call("PlaceOrder", file=path), confirmation(12, "USD", 3, "Boston", "SHIPPED"))

    c.answer("PlaceOrder --port ShopSoap12: the same order over SOAP 1.2",
             c.call("PlaceOrder", *[a.replace("city=Paris", "city=Lyon") for a in order], port="ShopSoap12"),
             confirmation(9.9, "EUR", 2, "Lyon", "NEW"))
    c.last_post("--port ShopSoap12 sent SOAP 1.2 to the port's address", "/shop/soap12", "application/soap+xml")

    none = [a.replace("sku=A-1", "sku=NONE") for a in order]
    c.fault("declared fault OutOfStock (SOAP 1.1): exit 2, reason and detail",
            c.call("PlaceOrder", *none, json_out=False), "Client", "Out of stock: sku NONE", ["NONE", "OutOfStock"])
    c.fault("declared fault OutOfStock (SOAP 1.2): exit 2, Sender, reason and detail",
            c.call("PlaceOrder", *none, port="ShopSoap12", json_out=False), "Sender", "Out of stock: sku NONE",
            ["NONE", "OutOfStock"])

    c.refused("missing required order.customer.address.city: exit 64, nothing sent", r"city",
              "PlaceOrder", *[a for a in order if ".city=" not in a])
    c.refused("order.status=LOST (not in NEW/PAID/SHIPPED): exit 64, nothing sent", r"status|LOST",
              "PlaceOrder", *order, "order.status=LOST")
    c.refused("order.item[0].qty=three (not an xsd:int): exit 64, nothing sent", r"qty|three",
              "PlaceOrder", *[a.replace("qty=3", "qty=three") for a in order])

    c.stress("lather-stress --wsdl --op PlaceOrder: 200 calls, all ok", "PlaceOrder", order)
    c.stress("lather-stress --wsdl --op PlaceOrder --port ShopSoap12: 50 calls, all ok", "PlaceOrder", order,
             n=50, port="ShopSoap12")


def php_rpc(c):
    base = c.server.wsdl_url.split("/calc/")[0]
    actions = {op: f"urn:calc:v1#{op}" for op in ("Add", "Concat", "Divide", "Describe")}
    listed = c.list_ports({"CalcSoap": ("1.1", "CalcSoap", base + "/calc/soap11", actions),
                           "CalcSoap12": ("1.2", "CalcSoap12", base + "/calc/soap12", actions)}, "rpc")
    c.input_fields(listed, "CalcSoap", "Add", {"a": True, "b": True})
    c.input_fields(listed, "CalcSoap", "Describe", {"person": True})

    c.answer("Add(2, 40) = 42 (rpc/literal, typed as a number)", c.call("Add", "a=2", "b=40"),
             lambda d: number_is(d["sum"], 42))
    c.last_post("Add went to the first SOAP 1.1 port (CalcSoap)", "/calc/soap11", "text/xml")
    c.answer("Concat(foo, bar) = foobar", c.call("Concat", "first=foo", "second=bar"),
             lambda d: d == {"result": "foobar"})
    c.answer("Divide(17, 5) = 3", c.call("Divide", "dividend=17", "divisor=5"), lambda d: number_is(d["quotient"], 3))
    person = ["person.name=Ada", "person.age=36", "person.title=DR", "person.address.city=London",
              "person.address.country=UK"]
    c.answer("Describe(person with a nested address, title enum) = 'DR Ada, 36, London (UK)'",
             c.call("Describe", *person), lambda d: d == {"summary": "DR Ada, 36, London (UK)"})
    r = c.call("Add", "a=2", "b=40", json_out=False)
    c.check("Add without --json: 'sum: 42'", r.rc == 0 and "sum: 42" in r.out.splitlines(), r)

    # PHP's SOAP 1.2 rpc answer also carries <rpc:result>sum</rpc:result> (soap-rpc namespace) before <sum>.
    c.answer("Add --port CalcSoap12: 20 + 22 = 42 over SOAP 1.2", c.call("Add", "a=20", "b=22", port="CalcSoap12"),
             lambda d: number_is(d["sum"], 42))
    c.last_post("--port CalcSoap12 sent SOAP 1.2 to the port's address", "/calc/soap12", "application/soap+xml")

    c.fault("declared fault DivisionByZero: exit 2, reason and detail",
            c.call("Divide", "dividend=7", "divisor=0", json_out=False), "Client", "Division by zero",
            ["DivisionByZero", "7"])

    c.refused("Add without b: exit 64, nothing sent", r"\bb\b", "Add", "a=1")
    c.refused("Describe person.title=KING (not in MR/MS/DR): exit 64, nothing sent", r"title|KING",
              "Describe", *[p.replace("=DR", "=KING") for p in person])
    c.refused("Add a=x (not an xsd:int): exit 64, nothing sent", r"\ba\b|\bx\b", "Add", "a=x", "b=1")

    c.stress("lather-stress --wsdl --op Add: 200 calls, all ok", "Add", ["a=1", "b=2"])
    c.stress("lather-stress --wsdl --op Concat with 'second' unset: filled with a sample, named on stderr",
             "Concat", ["first=x"], n=50, stderr_pattern=r"second")


def node_soap(c):
    base = c.server.wsdl_url.split("/ship/")[0]
    actions = {op: f"urn:ship:v1/{op}" for op in ("Ship", "Echo")}
    listed = c.list_ports({"ShipSoap": ("1.1", "ShipSoap", base + "/ship/soap11", actions),
                           "ShipSoap12": ("1.2", "ShipSoap12", base + "/ship/soap12", actions)}, "document")
    c.input_fields(listed, "ShipSoap", "Ship", {"parcel": True})

    parcel = ["parcel.@insured=true", "parcel.to.name=Bo", "parcel.to.address.city=Oslo",
              "parcel.to.address.country=NO", "parcel.service=EXPRESS",
              "parcel.box[0].label=a", "parcel.box[0].weightKg=1.5", "parcel.box[1].label=b",
              "parcel.box[1].weightKg=2"]

    def shipped(boxes, weight, price, city, insured):
        return lambda d: (d["trackingId"].startswith("TRK-") and number_is(d["boxes"], boxes)
                          and number_is(d["weightKg"], weight) and number_is(d["price"], price)
                          and d["city"] == city and d["insured"] is insured)

    c.answer("Ship (nested recipient/address, 2 boxes, EXPRESS, @insured): 3.5 kg * 10 = 35",
             c.call("Ship", *parcel), shipped(2, 3.5, 35, "Oslo", True))
    c.last_post("Ship went to the first SOAP 1.1 port (ShipSoap)", "/ship/soap11", "text/xml")
    path = os.path.join(c.server.work, "parcel.json")
    with open(path, "w") as f:
        json.dump({"parcel": {"to": {"name": "Kari", "address": {"city": "Bergen", "country": "NO"}},
                              "service": "STANDARD", "box": [{"label": "x", "weightKg": 2.5}]}}, f)
    c.answer("Ship -f parcel.json (one box in a JSON array): 2.5 kg * 4 = 10, not insured",
             c.call("Ship", file=path), shipped(1, 2.5, 10, "Bergen", False))
    c.answer("Echo keeps UTF-8 and markup characters", c.call("Echo", "text=héllo <&> \"x\""),
             lambda d: d == {"text": "héllo <&> \"x\""})
    r = c.call("Echo", "text=plain", json_out=False)
    c.check("Echo without --json: 'text: plain'", r.rc == 0 and "text: plain" in r.out.splitlines(), r)

    c.answer("Ship --port ShipSoap12: the same parcel over SOAP 1.2", c.call("Ship", *parcel, port="ShipSoap12"),
             shipped(2, 3.5, 35, "Oslo", True))
    c.last_post("--port ShipSoap12 sent SOAP 1.2 to the port's address", "/ship/soap12", "application/soap+xml")

    heavy = [p.replace("weightKg=2", "weightKg=30") for p in parcel]
    c.fault("declared fault TooHeavy (31.5 kg): exit 2, reason and detail", c.call("Ship", *heavy, json_out=False),
            "Client", "Parcel too heavy: 31.5 kg (at most 30 kg)", ["TooHeavy", "30"])
    c.fault("declared fault TooHeavy over SOAP 1.2: Sender", c.call("Ship", *heavy, port="ShipSoap12", json_out=False),
            "Sender", "Parcel too heavy", ["TooHeavy", "30"])

    c.refused("missing required parcel.to.name: exit 64, nothing sent", r"name",
              "Ship", *[p for p in parcel if not p.startswith("parcel.to.name=")])
    c.refused("parcel.service=TELEPORT (not in STANDARD/EXPRESS): exit 64, nothing sent", r"service|TELEPORT",
              "Ship", *[p.replace("=EXPRESS", "=TELEPORT") for p in parcel])

    c.stress("lather-stress --wsdl --op Ship: 200 calls, all ok", "Ship", parcel)


def asmx(c):
    base = c.server.wsdl_url.split("/Service.asmx")[0]
    actions = {op: f"urn:asmx:warehouse/{op}" for op in ("Add", "Receive")}
    # Mono's WSDL also has WarehouseHttpGet / WarehouseHttpPost ports (http:binding): not SOAP, not listed.
    listed = c.list_ports({"WarehouseSoap": ("1.1", "WarehouseSoap", base + "/Service.asmx", actions),
                           "WarehouseSoap12": ("1.2", "WarehouseSoap12", base + "/Service.asmx", actions)}, "document")
    c.input_fields(listed, "WarehouseSoap", "Add", {"a": True, "b": True})
    c.input_fields(listed, "WarehouseSoap", "Receive", {"shipment": False})

    c.answer("Add(2, 40) = 42", c.call("Add", "a=2", "b=40"), lambda d: number_is(d["AddResult"], 42))
    c.last_post("Add went to the first SOAP 1.1 port (WarehouseSoap)", "/Service.asmx", "text/xml")
    shipment = ["shipment.@Dock=D4", "shipment.Supplier=ACME", "shipment.Contact.Name=Eve",
                "shipment.Contact.Address.City=Lyon", "shipment.Contact.Address.Country=FR",
                "shipment.Pallets.Pallet[0].Sku=P-1", "shipment.Pallets.Pallet[0].Boxes=5",
                "shipment.Pallets.Pallet[0].Grade=A", "shipment.Pallets.Pallet[1].Sku=P-2",
                "shipment.Pallets.Pallet[1].Boxes=7", "shipment.Pallets.Pallet[1].Grade=C"]
    summary = "ACME to Eve in Lyon (FR): 2 pallets, 12 boxes, grades A+C, dock D4"
    c.answer("Receive (Contact > Address, ArrayOfPallet, Grade enum, @Dock): 12 boxes and the summary",
             c.call("Receive", *shipment),
             lambda d: d == {"ReceiveResult": {"PalletCount": 2, "TotalBoxes": 12, "Summary": summary}})
    r = c.call("Add", "a=2", "b=40", json_out=False)
    c.check("Add without --json: 'AddResult: 42'", r.rc == 0 and "AddResult: 42" in r.out.splitlines(), r)

    c.answer("Add --port WarehouseSoap12: 20 + 22 = 42 over SOAP 1.2", c.call("Add", "a=20", "b=22",
                                                                             port="WarehouseSoap12"),
             lambda d: number_is(d["AddResult"], 42))
    c.last_post("--port WarehouseSoap12 sent SOAP 1.2", "/Service.asmx", "application/soap+xml")
    c.answer("Receive --port WarehouseSoap12", c.call("Receive", *shipment, port="WarehouseSoap12"),
             lambda d: d["ReceiveResult"]["Summary"] == summary)

    empty = [s.replace("Boxes=5", "Boxes=0").replace("Sku=P-1", "Sku=P-0") for s in shipment]
    c.fault("SoapException (SOAP 1.1): exit 2, Client, reason and detail", c.call("Receive", *empty, json_out=False),
            "Client", "Pallet P-0 has no boxes", ["Rejection", "P-0"])
    c.fault("SoapException (SOAP 1.2): exit 2, Sender, reason and detail",
            c.call("Receive", *empty, port="WarehouseSoap12", json_out=False), "Sender", "Pallet P-0 has no boxes",
            ["Rejection", "P-0"])

    c.refused("Add without b: exit 64, nothing sent", r"\bb\b", "Add", "a=1")
    c.refused("Pallet[1] without its required Boxes (minOccurs=1, in an optional parent): exit 64, nothing sent",
              r"Boxes", "Receive", *[s for s in shipment if "Pallet[1].Boxes" not in s])
    c.refused("Grade=Z (not in A/B/C): exit 64, nothing sent", r"Grade|\bZ\b",
              "Receive", *[s.replace("Grade=C", "Grade=Z") for s in shipment])

    c.stress("lather-stress --wsdl --op Add: 200 calls, all ok", "Add", ["a=1", "b=2"])
    c.stress("lather-stress --wsdl --op Receive --port WarehouseSoap12: 50 calls, all ok", "Receive", shipment,
             n=50, port="WarehouseSoap12")


def refusals(c):
    base = c.server.base_url
    # fixture, what is wrong with it, what the one stderr line must match, a call with fields it declares
    cases = [("not-xml.wsdl", "a WSDL that is not XML", r"(?i)xml", ["Echo", "text=x"]),
             ("weird-style.wsdl", 'soap:binding style="weird"', r"weird", ["Echo", "text=x"]),
             ("cycle.wsdl", "an import cycle cycle-a.xsd -> cycle-b.xsd -> cycle-a.xsd", r"(?i)cycl|circular",
              ["Echo", "thing.part.name=x"]),
             ("rpc-encoded.wsdl", "an rpc/encoded binding", r"(?i)encoded", ["Echo", "text=x"])]
    for fixture, what, pattern, call in cases:
        url = f"{base}/{fixture}"
        for args in (["list"], call):
            r = c.run([c.call_bin, "--wsdl", url] + args)
            err = [l for l in r.err.splitlines() if l.strip()]
            c.check(f"{what}: '{' '.join(args)}' exits 4 with one clear stderr line", r.rc == 4 and len(err) == 1
                    and re.search(pattern, err[0]) is not None, r, f"expected exit 4 and one line matching /{pattern}/")
    dead = f"http://127.0.0.1:{servers.free_port()}/nothing?wsdl"
    r = c.run([c.call_bin, "--wsdl", dead, "list"])
    err = [l for l in r.err.splitlines() if l.strip()]
    c.check("a WSDL URL nobody listens on: exit 3 with one stderr line naming it", r.rc == 3 and len(err) == 1
            and dead.split("/nothing")[0].split("//")[1] in err[0], r)


SCENARIOS = {"php-shop": php_shop, "php-rpc": php_rpc, "node-soap": node_soap, "asmx": asmx, "refusals": refusals}


def on_timeout(signum, frame):
    raise TimeoutError(f"the whole test took more than {WHOLE_TEST_TIMEOUT_S} s")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in SCENARIOS:
        print(f"usage: {sys.argv[0]} BUILD_DIR {'|'.join(SCENARIOS)}", file=sys.stderr)
        return 64
    build_dir, service = os.path.abspath(sys.argv[1]), sys.argv[2]
    sys.stdout.reconfigure(line_buffering=True)  # every line out at once, also if CTest kills the test
    for tool in ("client/lather-call", "stress/lather-stress"):
        if not os.access(os.path.join(build_dir, tool), os.X_OK):
            print(f"FAIL: {os.path.join(build_dir, tool)} is missing or not executable")
            return 1
    signal.signal(signal.SIGALRM, on_timeout)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    signal.alarm(WHOLE_TEST_TIMEOUT_S)
    work = tempfile.mkdtemp(prefix=f"lather-wsdl-{service}-")
    server = None
    try:
        try:
            server = servers.STARTERS[service](work)
        except servers.MissingRuntime as e:
            print(f"skipped: {e}")
            return 77
        except (servers.StartFailure, OSError, subprocess.SubprocessError) as e:
            print(f"FAIL: the {service} service did not start: {e}")
            return 1
        print(f"ok: {service} serves its WSDL at {server.wsdl_url}")
        c = Checks(build_dir, server)
        SCENARIOS[service](c)
        if c.failed:
            print(f"{c.failed} check(s) failed" + ("" if service == "refusals" else
                                                   f"; the server's stderr ends with:\n{server.errors()}"))
            return 1
        print(f"all checks passed ({service})")
        return 0
    except TimeoutError as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        signal.alarm(0)
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
