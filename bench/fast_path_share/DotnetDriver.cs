// bench/fast-path-share's .NET (Mono) driver: ordinary calls through the proxy Mono's `wsdl` tool generated
// from ?wsdl (namespace Lather.Gen, /protocol:SOAP or /protocol:SOAP12, as tests/interop/dotnet/run.sh does).
// usage: mono DotnetDriver.exe ENDPOINT_URL N COUNTER
// N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER).
using System;
using Lather.Gen;

public static class DotnetDriver
{
    public static int Main(string[] args)
    {
        var svc = new LatherService();
        svc.Url = args[0];
        svc.Timeout = 10000;
        svc.Proxy = null;
        int count = int.Parse(args[1]);
        int failed = 0;
        for (int i = 0; i < count; i++) if (svc.Increment(41 + i) != 42 + i) failed++;
        if (svc.HelloWorld() != "Hello World") failed++;
        long first = svc.IncCounter(args[2]);
        if (svc.GetCounter(args[2]) != first) failed++;
        Console.WriteLine("mono-wsdl: " + (count + 3) + " calls, " + failed + " wrong answers");
        return failed == 0 ? 0 : 1;
    }
}
