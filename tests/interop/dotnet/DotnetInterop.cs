// Interop client: calls every Lather operation through a proxy that Mono's `wsdl` tool generated from
// the live ?wsdl (namespace Lather.Gen, class LatherService : SoapHttpClientProtocol). Compiled twice by
// run.sh: once against the SOAP 1.1 proxy (`wsdl /protocol:SOAP`), once with -define:SOAP12 against the
// SOAP 1.2 one (`wsdl /protocol:SOAP12`). Single-threaded.
// Usage: mono DotnetInterop.exe ENDPOINT_URL
// Prints one PASS/FAIL line per check and "N passed, M failed"; exit status 1 on any failure.
using System;
using System.Collections.Generic;
using System.Web.Services.Protocols;
using Lather.Gen;

public static class DotnetInterop
{
#if SOAP12
    const string Label = "SOAP 1.2";
    const string ClientCode = "Sender";
    const string EnvelopeNs = "http://www.w3.org/2003/05/soap-envelope";
    const SoapProtocolVersion Version = SoapProtocolVersion.Soap12;
#else
    const string Label = "SOAP 1.1";
    const string ClientCode = "Client";
    const string EnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/";
    const SoapProtocolVersion Version = SoapProtocolVersion.Default;  // what wsdl /protocol:SOAP sets: SOAP 1.1
#endif
    const string OverflowReason = "Increment: value 2147483647 is the largest xsd:int; value + 1 would overflow";

    static int passed, failed;

    static void Check(string name, Func<string> fn)
    {
        string outcome;
        try { outcome = fn(); }
        catch (Exception e) { outcome = "threw " + e.GetType().FullName + ": " + e.Message; }
        if (outcome == null) { passed++; Console.WriteLine("PASS  " + Label + ": " + name); }
        else { failed++; Console.WriteLine("FAIL  " + Label + ": " + name + ": " + outcome); }
    }

    static DataSample Sample(string first, string last, string city, uint zip, string email, string[] contacts,
                             string designation, int experience, double salary, string[] companies,
                             DateTimeOffset born, bool married, DataSample[] children)
    {
        var s = new DataSample();
        s.firstname = first; s.lastname = last; s.city = city; s.zip = zip; s.email = email;
        s.contactNos = contacts; s.designation = designation; s.experience = experience; s.salary = salary;
        s.companiesWorkedFor = companies; s.dateOfBirth = born.UtcDateTime; s.isMarried = married;
        s.children = children;
        return s;
    }

    static void Compare(DataSample want, DataSample got, string path, List<string> diffs)
    {
        if (got == null) { diffs.Add(path + ": null"); return; }
        Action<string, object, object> eq = (field, w, g) => {
            if (!object.Equals(w, g)) diffs.Add(path + "." + field + ": <" + g + ">, expected <" + w + ">");
        };
        eq("firstname", want.firstname, got.firstname);
        eq("lastname", want.lastname, got.lastname);
        eq("city", want.city, got.city);
        eq("zip", want.zip, got.zip);
        eq("email", want.email, got.email);
        eq("contactNos", string.Join("|", want.contactNos), string.Join("|", got.contactNos ?? new string[0]));
        eq("designation", want.designation, got.designation);
        eq("experience", want.experience, got.experience);
        eq("salary", want.salary, got.salary);
        eq("companiesWorkedFor", string.Join("|", want.companiesWorkedFor),
           string.Join("|", got.companiesWorkedFor ?? new string[0]));
        // Instants: XmlSerializer hands back a zoned dateTime as local time (Kind=Local).
        eq("dateOfBirth", want.dateOfBirth.ToUniversalTime().ToString("o"), got.dateOfBirth.ToUniversalTime().ToString("o"));
        eq("isMarried", want.isMarried, got.isMarried);
        var kids = got.children ?? new DataSample[0];
        if (kids.Length != want.children.Length)
            diffs.Add(path + ".children: " + kids.Length + " entries, expected " + want.children.Length);
        for (int i = 0; i < Math.Min(kids.Length, want.children.Length); i++)
            Compare(want.children[i], kids[i], path + ".children[" + i + "]", diffs);
    }

    public static int Main(string[] args)
    {
        if (args.Length != 1) { Console.Error.WriteLine("usage: DotnetInterop.exe ENDPOINT_URL"); return 2; }
        var svc = new LatherService();
        svc.Url = args[0];
        svc.Timeout = 10000;
        svc.Proxy = null; // never through an environment proxy to 127.0.0.1
        Check("the generated proxy speaks " + Version, () =>
            svc.SoapVersion == Version ? null : "SoapVersion is " + svc.SoapVersion);

        Check("Increment(41) == 42", () => { int r = svc.Increment(41); return r == 42 ? null : "got " + r; });
        Check("Increment(-1) == 0", () => { int r = svc.Increment(-1); return r == 0 ? null : "got " + r; });
        Check("Increment(2147483647) throws SoapException (" + ClientCode + ") with the service's reason", () => {
            try { int r = svc.Increment(2147483647); return "no exception; returned " + r; }
            catch (SoapException e) {
                // e.Code is the fault code as sent, qualified by the envelope namespace of its version
                // (so a 1.2 Sender also shows that the reply really was a SOAP 1.2 envelope).
                if (e.Code == null || e.Code.Name != ClientCode || e.Code.Namespace != EnvelopeNs)
                    return "fault code " + e.Code + ", expected " + EnvelopeNs + ":" + ClientCode;
                // SOAP 1.1 section 4.4: a fault about the Body MUST carry <detail>; the service's 1.1 faults
                // have none, so System.Web.Services raises SoapHeaderException (a SoapException) for them.
                if (e is SoapHeaderException)
                    Console.WriteLine("NOTE  " + Label + ": the fault arrived as SoapHeaderException (no <detail> in it)");
                if (e.Message != OverflowReason) return "reason <" + e.Message + ">, expected <" + OverflowReason + ">";
                return null;
            }
        });
        Check("HelloWorld() == \"Hello World\"", () => {
            string r = svc.HelloWorld(); return r == "Hello World" ? null : "got <" + r + ">";
        });
        string name = "dotnet-" + Guid.NewGuid().ToString("N").Substring(0, 12);
        Check("IncCounter twice -> 1, 2; GetCounter -> 2", () => {
            long a = svc.IncCounter(name), b = svc.IncCounter(name), c = svc.GetCounter(name);
            return (a == 1 && b == 2 && c == 2) ? null : "got " + a + ", " + b + ", " + c;
        });
        Check("EchoDataSamples round-trips 2 samples (nested child, non-ASCII, zoned dateTimes)", () => {
            var child = Sample("Léa", "Müller", "Zürich", 8001, "lea@example.ch", new[] { "+41 44 000 00 00" },
                               "Schülerin", 1, 1234.5678, new string[0],
                               new DateTimeOffset(2010, 6, 15, 8, 30, 0, TimeSpan.FromHours(2)), false, new DataSample[0]);
            var sent = new[] {
                Sample("Jürgen", "Ørsted", "Zürich", 8001, "juergen@example.ch", new[] { "+41 1", "+41 2" },
                       "Senior <Engineer> & \"Architect\"", 17, -0.5, new[] { "Ærø Shipping A/S", "東京電力" },
                       new DateTimeOffset(1980, 2, 29, 13, 45, 30, 123, TimeSpan.FromHours(2)), true, new[] { child }),
                Sample("Hanako", "山田", "東京", 4294967295u, "hanako@example.jp", new string[0], "部長", 0, 3.0e10,
                       new[] { "Ærøskøbing" }, new DateTimeOffset(1975, 7, 1, 0, 0, 0, new TimeSpan(-5, -30, 0)),
                       true, new DataSample[0]),
            };
            // samples is both the request's and the response's only child: wsdl makes it a ref parameter.
            DataSample[] got = sent;
            svc.EchoDataSamples(ref got);
            if (got == null) return "null reply";
            if (object.ReferenceEquals(got, sent)) return "the ref parameter was not replaced by the reply";
            if (got.Length != sent.Length) return got.Length + " samples back, expected " + sent.Length;
            var diffs = new List<string>();
            for (int i = 0; i < sent.Length; i++) Compare(sent[i], got[i], "sample[" + i + "]", diffs);
            return diffs.Count == 0 ? null : string.Join("; ", diffs.ToArray());
        });
        Console.WriteLine(Label + ": " + passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
