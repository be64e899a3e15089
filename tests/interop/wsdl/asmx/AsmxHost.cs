// A minimal web server for the asmx test service: Mono's ASP.NET runtime (System.Web.Hosting, the runtime
// XSP hosts) behind System.Net.HttpListener. It stands in for xsp4, which does not start on Debian 12:
// mono-xsp4 4.2 references Mono.Security.Protocol.Tls, which Mono 6.8's Mono.Security no longer has
// (TypeLoadException at startup; mono/mono#18500).
// Usage: mono APPDIR/bin/AsmxHost.exe PORT APPDIR LOGFILE  (the exe must be in APPDIR/bin so that the
// application's AppDomain can load it). Binds 127.0.0.1:PORT, prints "listening PORT" when ready, appends
// "PATH CONTENT-TYPE | SOAPACTION" to LOGFILE for every POST and exits by itself after 10 minutes.
using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Threading;
using System.Web;
using System.Web.Hosting;

public class AsmxHost : MarshalByRefObject {
    static readonly object logLock = new object();

    public override object InitializeLifetimeService() { return null; }

    public void Run(int port, string logFile) {
        HttpListener listener = new HttpListener();
        listener.Prefixes.Add("http://127.0.0.1:" + port + "/");
        for (int attempt = 0; ; attempt++) {  // after a restart the old listener may hold the port a moment
            try { listener.Start(); break; } catch (HttpListenerException) { if (attempt >= 50) throw; }
            Thread.Sleep(100);
        }
        Console.WriteLine("listening " + port);
        Console.Out.Flush();
        while (true) {
            HttpListenerContext context = listener.GetContext();
            ThreadPool.QueueUserWorkItem(delegate { Serve(context, logFile); });
        }
    }

    static void Serve(HttpListenerContext context, string logFile) {
        try {
            HttpListenerRequest request = context.Request;
            if (request.HttpMethod == "POST") {
                lock (logLock) {
                    File.AppendAllText(logFile, request.Url.AbsolutePath + " " + (request.ContentType ?? "-") + " | "
                                       + (request.Headers["SOAPAction"] ?? "-") + "\n");
                }
            }
            HttpRuntime.ProcessRequest(new ListenerWorkerRequest(context));
        } catch (Exception e) {
            Console.Error.WriteLine("AsmxHost: " + e);
            try { context.Response.StatusCode = 500; context.Response.Close(); } catch (Exception) { }
        }
    }

    public static int Main(string[] args) {
        if (args.Length != 3) {
            Console.Error.WriteLine("usage: AsmxHost.exe PORT APPDIR LOGFILE");
            return 64;
        }
        new Timer(delegate { Environment.Exit(0); }, null, 10 * 60 * 1000, Timeout.Infinite);
        while (true) {  // ASP.NET unloads the application when its files change: start it again, as XSP does
            try {
                AsmxHost host = (AsmxHost)ApplicationHost.CreateApplicationHost(typeof(AsmxHost), "/",
                                                                                Path.GetFullPath(args[1]));
                host.Run(int.Parse(args[0]), Path.GetFullPath(args[2]));
            } catch (AppDomainUnloadedException) {
                Console.Error.WriteLine("AsmxHost: the application was unloaded; starting it again");
                Thread.Sleep(200);
            }
        }
    }
}

// One request: the HttpListener's request read whole up front, the response written to it.
class ListenerWorkerRequest : SimpleWorkerRequest {
    readonly HttpListenerContext context;
    readonly byte[] body;

    public ListenerWorkerRequest(HttpListenerContext context)
        : base(context.Request.Url.AbsolutePath.TrimStart('/'), context.Request.Url.Query.TrimStart('?'), TextWriter.Null) {
        this.context = context;
        MemoryStream buffer = new MemoryStream();
        context.Request.InputStream.CopyTo(buffer);
        body = buffer.ToArray();
    }

    public override string GetHttpVerbName() { return context.Request.HttpMethod; }
    public override string GetHttpVersion() { return "HTTP/" + context.Request.ProtocolVersion; }
    public override string GetRawUrl() { return context.Request.RawUrl; }
    public override string GetUriPath() { return context.Request.Url.AbsolutePath; }
    public override string GetQueryString() { return context.Request.Url.Query.TrimStart('?'); }
    public override string GetRemoteAddress() { return context.Request.RemoteEndPoint.Address.ToString(); }
    public override int GetRemotePort() { return context.Request.RemoteEndPoint.Port; }
    public override string GetLocalAddress() { return context.Request.LocalEndPoint.Address.ToString(); }
    public override int GetLocalPort() { return context.Request.LocalEndPoint.Port; }
    public override string GetServerName() { return context.Request.Url.Host; }

    public override string GetKnownRequestHeader(int index) {
        return context.Request.Headers[GetKnownRequestHeaderName(index)];
    }
    public override string GetUnknownRequestHeader(string name) { return context.Request.Headers[name]; }
    public override string[][] GetUnknownRequestHeaders() {
        List<string[]> unknown = new List<string[]>();
        foreach (string name in context.Request.Headers.AllKeys) {
            if (GetKnownRequestHeaderIndex(name) < 0) unknown.Add(new string[] { name, context.Request.Headers[name] });
        }
        return unknown.ToArray();
    }

    public override byte[] GetPreloadedEntityBody() { return body; }
    public override int GetPreloadedEntityBodyLength() { return body.Length; }
    public override int GetTotalEntityBodyLength() { return body.Length; }
    public override bool IsEntireEntityBodyIsPreloaded() { return true; }
    public override int ReadEntityBody(byte[] buffer, int size) { return 0; }

    public override void SendStatus(int statusCode, string statusDescription) {
        context.Response.StatusCode = statusCode;
        context.Response.StatusDescription = statusDescription;
    }
    public override void SendKnownResponseHeader(int index, string value) {
        SendUnknownResponseHeader(GetKnownResponseHeaderName(index), value);
    }
    public override void SendUnknownResponseHeader(string name, string value) {
        if (string.Equals(name, "Content-Length", StringComparison.OrdinalIgnoreCase)) {
            context.Response.ContentLength64 = long.Parse(value);
        } else if (string.Equals(name, "Content-Type", StringComparison.OrdinalIgnoreCase)) {
            context.Response.ContentType = value;
        } else if (!string.Equals(name, "Transfer-Encoding", StringComparison.OrdinalIgnoreCase)
                   && !string.Equals(name, "Connection", StringComparison.OrdinalIgnoreCase)) {
            context.Response.AddHeader(name, value);
        }
    }
    public override void SendResponseFromMemory(byte[] data, int length) {
        context.Response.OutputStream.Write(data, 0, length);
    }
    public override void SendResponseFromFile(string filename, long offset, long length) {
        using (FileStream f = File.OpenRead(filename)) {
            f.Seek(offset, SeekOrigin.Begin);
            byte[] chunk = new byte[length];
            int n = f.Read(chunk, 0, chunk.Length);
            SendResponseFromMemory(chunk, n);
        }
    }
    public override void SendResponseFromFile(IntPtr handle, long offset, long length) {
        throw new NotSupportedException("SendResponseFromFile(handle)");
    }
    public override void FlushResponse(bool finalFlush) { context.Response.OutputStream.Flush(); }
    public override void EndOfRequest() { context.Response.Close(); }
}
