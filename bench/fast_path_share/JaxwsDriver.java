// bench/fast-path-share's JAX-WS driver: ordinary calls through the port wsimport generated from ?wsdl
// (package lather.jaxws.gen, as tests/interop/java/jaxws_interop.sh generates it).
// usage: java JaxwsDriver WSDL_URL 11|12 N COUNTER
// N Increment calls (values 41, 42, ...), then HelloWorld, IncCounter(COUNTER), GetCounter(COUNTER), through
// getLatherSoap() (11) or getLatherSoap12() (12).
import java.net.URL;
import javax.xml.ws.BindingProvider;
import lather.jaxws.gen.LatherPortType;
import lather.jaxws.gen.LatherService;

public class JaxwsDriver {
    public static void main(String[] args) throws Exception {
        LatherService service = new LatherService(new URL(args[0]));
        LatherPortType port = args[1].equals("12") ? service.getLatherSoap12() : service.getLatherSoap();
        BindingProvider bp = (BindingProvider) port;
        bp.getRequestContext().put("com.sun.xml.ws.connect.timeout", 10000);
        bp.getRequestContext().put("com.sun.xml.ws.request.timeout", 10000);
        int count = Integer.parseInt(args[2]);
        int failed = 0;
        for (int i = 0; i < count; i++) {
            if (port.increment(41 + i) != 42 + i) failed++;
        }
        if (!"Hello World".equals(port.helloWorld())) failed++;
        long first = port.incCounter(args[3]);
        if (port.getCounter(args[3]) != first) failed++;
        System.out.println("jaxws: " + (count + 3) + " calls, " + failed + " wrong answers");
        System.exit(failed == 0 ? 0 : 1);
    }
}
