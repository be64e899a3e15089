// Interop test: drive a live lather-service with JAX-WS RI (Debian libjaxws-java) over SOAP 1.1 and 1.2.
//
// Compiled and run by jaxws_interop.sh against the classes wsimport generated (package lather.jaxws.gen)
// from the live GET /soap?wsdl. Usage: java JaxwsInterop WSDL_URL ENDPOINT_URL
// Prints one line per check ("PASS name" or "FAIL name: what differed") and finally "N passed, M failed";
// exits 1 on any failure.

import java.math.BigDecimal;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import javax.xml.datatype.DatatypeConstants;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.datatype.XMLGregorianCalendar;
import javax.xml.ws.BindingProvider;
import javax.xml.ws.Holder;
import javax.xml.ws.handler.MessageContext;
import javax.xml.ws.soap.SOAPBinding;
import javax.xml.ws.soap.SOAPFaultException;
import lather.jaxws.gen.DataSample;
import lather.jaxws.gen.DataSampleList;
import lather.jaxws.gen.LatherPortType;
import lather.jaxws.gen.LatherService;
import lather.jaxws.gen.StringList;

public final class JaxwsInterop {
    static final String OVERFLOW_REASON =
        "Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow";
    static final int TIMEOUT_MS = 10000;

    static int passed = 0;
    static int failed = 0;

    static void record(String name, boolean ok, String detail) {
        if (ok) {
            passed++;
            System.out.println("PASS  " + name);
        } else {
            failed++;
            System.out.println("FAIL  " + name + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        }
        System.out.flush();
    }

    /** Runs fn: null means pass, a string says what differed; an exception is a failure too. */
    static void check(String name, Callable<String> fn) {
        String outcome;
        try {
            outcome = fn.call();
        } catch (Throwable t) {
            outcome = "raised " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).split("\n")[0];
        }
        record(name, outcome == null, outcome);
    }

    static String expectEqual(Object actual, Object expected) {
        if (actual == null ? expected != null : !actual.equals(expected)) {
            return "got " + show(actual) + ", expected " + show(expected);
        }
        return null;
    }

    static String show(Object o) {
        if (o instanceof String) return "\"" + o + "\"";
        if (o instanceof XMLGregorianCalendar) return ((XMLGregorianCalendar) o).toXMLFormat();
        return String.valueOf(o);
    }

    // -------------------------------------------------------------------------------------------
    // Test data

    static final DatatypeFactory DATATYPES;
    static {
        try {
            DATATYPES = DatatypeFactory.newInstance();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static DataSample sample(String firstname, String lastname, String city, long zip, String email,
                             List<String> contactNos, String designation, int experience, double salary,
                             List<String> companies, String dateOfBirth, boolean isMarried,
                             List<DataSample> children) {
        DataSample s = new DataSample();
        s.setFirstname(firstname);
        s.setLastname(lastname);
        s.setCity(city);
        s.setZip(zip);
        s.setEmail(email);
        StringList contacts = new StringList();
        contacts.getItem().addAll(contactNos);
        s.setContactNos(contacts);
        s.setDesignation(designation);
        s.setExperience(experience);
        s.setSalary(salary);
        StringList companyList = new StringList();
        companyList.getItem().addAll(companies);
        s.setCompaniesWorkedFor(companyList);
        s.setDateOfBirth(DATATYPES.newXMLGregorianCalendar(dateOfBirth));
        s.setIsMarried(isMarried);
        DataSampleList kids = new DataSampleList();
        kids.getSample().addAll(children);
        s.setChildren(kids);
        return s;
    }

    /** A fresh copy each call: one to send, one to compare with (the Holder is overwritten). */
    static List<DataSample> buildSamples() {
        DataSample grandchild = sample("Åsa", "Ærøskøbing-Møller", "Ærøskøbing", 5970, "asa@example.dk",
            List.of(), "Lærling", 0, 0.1, List.of(), "2015-01-02T03:04:05.25Z", false, List.of());
        DataSample child1 = sample("Léa", "Müller", "Zürich", 8001, "lea.mueller@example.ch",
            List.of("+41 44 000 00 00"), "Schülerin", 1, 1234.5678, List.of("Kinderkrippe Zürich"),
            "2010-06-15T08:30:00+02:00", false, List.of(grandchild));
        DataSample child2 = sample("Taro", "山田", "東京", 1000001, "taro@example.jp",
            List.of("03-0000-0000", "090-0000-0000"), "学生", 2, -0.5, List.of(),
            "2012-12-31T23:59:59.999999+09:00", true, List.of());
        return new ArrayList<>(List.of(
            sample("Jürgen", "Ørsted", "Zürich", 8001, "juergen@example.ch", List.of(),
                "Senior <Engineer> & \"Architect\" 'Ü'", 17, 1234.5678,
                List.of("Ærø Shipping A/S", "東京電力", "Müller & Söhne <GmbH>"),
                "1980-02-29T13:45:30.123456+02:00", true, List.of(child1, child2)),
            sample("Hanako", "山田", "東京", 4294967295L, "hanako@example.jp", List.of("+81 3 0000 0000"),
                "部長", 0, 0.1, List.of(), "1975-07-01T00:00:00-05:30", true, List.of()),
            sample("Søren", "Kierkegaard", "Ærøskøbing", 0, "soren@example.dk",
                List.of("+45 00 00 00 00", "+45 11 11 11 11", "+45 22 22 22 22"), "Filosof", -1, 3.0e10,
                List.of("Universitetet", ""), "1813-05-05T12:00:00.0005+01:00", false, List.of())));
    }

    // -------------------------------------------------------------------------------------------
    // Comparison, field by field

    static void compareLists(List<DataSample> sent, List<DataSample> got, String where, List<String> diffs) {
        if (got == null) got = List.of();
        if (got.size() != sent.size()) {
            diffs.add(where + ": " + got.size() + " samples, expected " + sent.size());
            return;
        }
        for (int i = 0; i < sent.size(); i++) compare(sent.get(i), got.get(i), where + "[" + i + "]", diffs);
    }

    static void same(String where, Object got, Object sent, List<String> diffs) {
        String d = expectEqual(got, sent);
        if (d != null) diffs.add(where + ": " + d);
    }

    static void compare(DataSample s, DataSample g, String where, List<String> diffs) {
        if (g == null) {
            diffs.add(where + ": missing");
            return;
        }
        same(where + ".firstname", g.getFirstname(), s.getFirstname(), diffs);
        same(where + ".lastname", g.getLastname(), s.getLastname(), diffs);
        same(where + ".city", g.getCity(), s.getCity(), diffs);
        same(where + ".zip", g.getZip(), s.getZip(), diffs);
        same(where + ".email", g.getEmail(), s.getEmail(), diffs);
        same(where + ".contactNos", g.getContactNos() == null ? null : g.getContactNos().getItem(),
             s.getContactNos().getItem(), diffs);
        same(where + ".designation", g.getDesignation(), s.getDesignation(), diffs);
        same(where + ".experience", g.getExperience(), s.getExperience(), diffs);
        // Double.equals: bit-for-bit the same double.
        same(where + ".salary", g.getSalary(), s.getSalary(), diffs);
        same(where + ".companiesWorkedFor",
             g.getCompaniesWorkedFor() == null ? null : g.getCompaniesWorkedFor().getItem(),
             s.getCompaniesWorkedFor().getItem(), diffs);
        XMLGregorianCalendar sd = s.getDateOfBirth();
        XMLGregorianCalendar gd = g.getDateOfBirth();
        if (gd == null) {
            diffs.add(where + ".dateOfBirth: missing");
        } else if (gd.getTimezone() == DatatypeConstants.FIELD_UNDEFINED) {
            diffs.add(where + ".dateOfBirth: " + gd.toXMLFormat() + " has no time zone; sent " + sd.toXMLFormat());
        } else if (gd.compare(sd) != DatatypeConstants.EQUAL || gd.getTimezone() != sd.getTimezone()
                   || !fraction(gd).equals(fraction(sd))) {
            diffs.add(where + ".dateOfBirth: " + gd.toXMLFormat() + ", expected " + sd.toXMLFormat()
                      + " (same instant, zone and fraction)");
        }
        same(where + ".isMarried", g.isIsMarried(), s.isIsMarried(), diffs);
        compareLists(s.getChildren().getSample(), g.getChildren() == null ? null : g.getChildren().getSample(),
                     where + ".children", diffs);
    }

    static BigDecimal fraction(XMLGregorianCalendar c) {
        BigDecimal f = c.getFractionalSecond();
        return f == null ? BigDecimal.ZERO : f.stripTrailingZeros();
    }

    // -------------------------------------------------------------------------------------------
    // Checks against one port

    static String mediaType(Map<String, Object> responseContext) {
        @SuppressWarnings("unchecked")
        Map<String, List<String>> headers = (Map<String, List<String>>) responseContext.get(MessageContext.HTTP_RESPONSE_HEADERS);
        if (headers == null) return "(no response headers)";
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey() != null && e.getKey().equalsIgnoreCase("Content-Type") && !e.getValue().isEmpty()) {
                return e.getValue().get(0).split(";", 2)[0].trim().toLowerCase();
            }
        }
        return "(no Content-Type)";
    }

    static void portChecks(LatherPortType port, String label, String wantBinding, String wantMedia, String wantCode,
                           String endpoint) {
        BindingProvider bp = (BindingProvider) port;
        bp.getRequestContext().put("com.sun.xml.ws.connect.timeout", TIMEOUT_MS);
        bp.getRequestContext().put("com.sun.xml.ws.request.timeout", TIMEOUT_MS);

        check(label + ": WSDL port address is the live address",
              () -> expectEqual(bp.getRequestContext().get(BindingProvider.ENDPOINT_ADDRESS_PROPERTY), endpoint));
        check(label + ": JAX-WS binding ID is " + wantBinding,
              () -> expectEqual(bp.getBinding().getBindingID(), wantBinding));
        check(label + ": Increment(41) == 42", () -> expectEqual(port.increment(41), 42));
        check(label + ": response Content-Type is " + wantMedia,
              () -> expectEqual(mediaType(bp.getResponseContext()), wantMedia));
        check(label + ": Increment(-1) == 0", () -> expectEqual(port.increment(-1), 0));
        check(label + ": Increment(2147483647) is a SOAPFaultException " + wantCode + " with the service's reason", () -> {
            int value;
            try {
                value = port.increment(2147483647);
            } catch (SOAPFaultException e) {
                List<String> problems = new ArrayList<>();
                String code = e.getFault().getFaultCodeAsQName().getLocalPart();
                if (!code.equals(wantCode)) problems.add("fault code " + code + ", expected " + wantCode);
                String reason = e.getFault().getFaultString();
                if (!OVERFLOW_REASON.equals(reason)) {
                    problems.add("reason " + show(reason) + ", expected " + show(OVERFLOW_REASON));
                }
                return problems.isEmpty() ? null : String.join("; ", problems);
            }
            return "no fault raised; returned " + value;
        });
        check(label + ": HelloWorld() == \"Hello World\"", () -> expectEqual(port.helloWorld(), "Hello World"));

        String name = "jaxws-" + label.replace(' ', '-') + "-" + UUID.randomUUID();
        check(label + ": IncCounter twice on a fresh name gives 1, 2 and GetCounter gives 2", () -> {
            List<Long> values = Arrays.asList(port.incCounter(name), port.incCounter(name), port.getCounter(name));
            return values.equals(List.of(1L, 2L, 2L)) ? null
                : "IncCounter, IncCounter, GetCounter gave " + values + ", expected [1, 2, 2]";
        });
        check(label + ": GetCounter on an unknown name == 0",
              () -> expectEqual(port.getCounter("jaxws-unknown-" + UUID.randomUUID()), 0L));

        check(label + ": EchoDataSamples echoes 3 samples (nested, non-ASCII, zoned dateTime, double, boolean)", () -> {
            DataSampleList toSend = new DataSampleList();
            toSend.getSample().addAll(buildSamples());
            Holder<DataSampleList> holder = new Holder<>(toSend);
            port.echoDataSamples(holder);
            if (holder.value == toSend) return "the Holder still holds the request object";
            List<String> diffs = new ArrayList<>();
            compareLists(buildSamples(), holder.value == null ? null : holder.value.getSample(), "samples", diffs);
            return diffs.isEmpty() ? null
                : diffs.size() + " difference(s): " + String.join("; ", diffs.subList(0, Math.min(10, diffs.size())));
        });
        check(label + ": EchoDataSamples with no samples echoes none", () -> {
            Holder<DataSampleList> holder = new Holder<>(new DataSampleList());
            port.echoDataSamples(holder);
            List<DataSample> got = holder.value == null ? List.of() : holder.value.getSample();
            return got.isEmpty() ? null : "got " + got.size() + " samples";
        });
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java JaxwsInterop WSDL_URL ENDPOINT_URL");
            System.exit(2);
        }
        System.out.println("java " + System.getProperty("java.version"));
        LatherService service;
        try {
            service = new LatherService(new URL(args[0]));
            record("JAX-WS service built from the live ?wsdl", true, null);
        } catch (Throwable t) {
            record("JAX-WS service built from the live ?wsdl", false, t.toString());
            System.out.println(passed + " passed, " + failed + " failed");
            System.exit(1);
            return;
        }
        portChecks(service.getLatherSoap(), "SOAP 1.1", SOAPBinding.SOAP11HTTP_BINDING, "text/xml", "Client", args[1]);
        portChecks(service.getLatherSoap12(), "SOAP 1.2", SOAPBinding.SOAP12HTTP_BINDING, "application/soap+xml", "Sender", args[1]);
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
