<%@ WebService Language="C#" Class="Warehouse" %>
// The asmx test service: an ASMX web service (System.Web.Services) whose WSDL is the one Mono generates at
// Service.asmx?WSDL (SOAP 1.1 port WarehouseSoap, SOAP 1.2 port WarehouseSoap12, document/literal wrapped).
//   Add(a, b)           -> a + b
//   Receive(shipment)   -> Receipt (a Shipment holds a Contact holding an Address, an array of Pallets with a
//                          Grade enumeration, and a Dock attribute); a pallet with Boxes < 1 raises a
//                          SoapException (Client fault) with a detail element.
using System;
using System.Web.Services;
using System.Web.Services.Protocols;
using System.Xml;
using System.Xml.Serialization;

public enum Grade { A, B, C }

public class Address { public string City; public string Country; }

public class Contact { public string Name; public Address Address; }

public class Pallet { public string Sku; public int Boxes; public Grade Grade; }

public class Shipment {
    public string Supplier;
    public Contact Contact;
    public Pallet[] Pallets;
    [XmlAttribute] public string Dock;
}

public class Receipt { public int PalletCount; public int TotalBoxes; public string Summary; }

[WebService(Namespace = "urn:asmx:warehouse")]
[WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
public class Warehouse : WebService {
    [WebMethod]
    public int Add(int a, int b) { return a + b; }

    // Summary: "SUPPLIER to NAME in CITY (COUNTRY): N pallets, M boxes, grades G1+G2..., dock DOCK".
    [WebMethod]
    public Receipt Receive(Shipment shipment) {
        Pallet[] pallets = shipment.Pallets ?? new Pallet[0];
        int boxes = 0;
        string grades = "";
        foreach (Pallet p in pallets) {
            if (p.Boxes < 1) throw Rejected(p.Sku, p.Boxes, SoapVersion == SoapProtocolVersion.Soap12);
            boxes += p.Boxes;
            grades += (grades.Length > 0 ? "+" : "") + p.Grade;
        }
        Contact c = shipment.Contact ?? new Contact();
        Address a = c.Address ?? new Address();
        Receipt r = new Receipt();
        r.PalletCount = pallets.Length;
        r.TotalBoxes = boxes;
        r.Summary = string.Format("{0} to {1} in {2} ({3}): {4} pallets, {5} boxes, grades {6}, dock {7}",
                                  shipment.Supplier, c.Name, a.City, a.Country, pallets.Length, boxes, grades,
                                  shipment.Dock);
        return r;
    }

    // The detail element as the request's SOAP version names it: Mono writes it as given, and
    // SoapException.DetailElementName is SOAP 1.1's unqualified "detail".
    static SoapException Rejected(string sku, int boxes, bool soap12) {
        XmlDocument doc = new XmlDocument();
        XmlNode detail = soap12
            ? doc.CreateNode(XmlNodeType.Element, "soap12", "Detail", "http://www.w3.org/2003/05/soap-envelope")
            : doc.CreateNode(XmlNodeType.Element, SoapException.DetailElementName.Name,
                             SoapException.DetailElementName.Namespace);
        XmlElement rejection = doc.CreateElement("Rejection", "urn:asmx:warehouse");
        XmlElement skuElement = doc.CreateElement("Sku", "urn:asmx:warehouse");
        skuElement.InnerText = sku;
        XmlElement boxesElement = doc.CreateElement("Boxes", "urn:asmx:warehouse");
        boxesElement.InnerText = boxes.ToString();
        rejection.AppendChild(skuElement);
        rejection.AppendChild(boxesElement);
        detail.AppendChild(rejection);
        return new SoapException("Pallet " + sku + " has no boxes", SoapException.ClientFaultCode, "", detail);
    }
}
