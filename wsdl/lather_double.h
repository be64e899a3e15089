// xsd:double with a custom serializer (wsdl/lather_double.cpp), for soapcpp2; imported from typemap.dat.
// gSOAP writes a double with snprintf("%.17lG"), about 5,200 instructions per value (glibc's
// multi-precision digit generation): 5.8% of an EchoDataSamples echo on the service (issue 7). The
// custom writer prints the shortest text that reads back as the same double (std::to_chars) and reads
// with gSOAP's own soap_indouble, so values, NaN/INF/-INF and faults are unchanged; only the spelling of
// some values changes (17 significant digits -> the fewest that round-trip, e.g. 0.1 instead of
// 0.10000000000000001). The C++ type stays double.

extern typedef double xsd__double;
