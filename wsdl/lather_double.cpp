// The custom serializer of xsd__double declared in wsdl/lather_double.h: gSOAP's reader, a faster writer.
// Thread safety: as gSOAP's own serializers (one struct soap per thread).
#include "soapH.h"
#include "wsdl/double_text.h"

SOAP_FMAC3 void SOAP_FMAC4 soap_default_xsd__double(struct soap*, double* a) { *a = 0; }

SOAP_FMAC3 void SOAP_FMAC4 soap_serialize_xsd__double(struct soap*, double const*) {}

// The lexical form of `n` as gSOAP's "%.17lG" lays it out, with the fewest digits that read back as the
// same double (wsdl/double_text.h).
SOAP_FMAC3 const char* SOAP_FMAC4 soap_xsd__double2s(struct soap* soap, double n) {
  static_assert(sizeof(soap->tmpbuf) >= lather::kXsdDoubleTextBytes);
  lather::FormatXsdDouble(n, soap->tmpbuf);
  return soap->tmpbuf;
}

SOAP_FMAC3 int SOAP_FMAC4 soap_out_xsd__double(struct soap* soap, const char* tag, int id, const double* a,
                                               const char* type) {
  if (soap_element_begin_out(soap, tag, soap_embedded_id(soap, id, a, SOAP_TYPE_xsd__double), type) ||
      soap_string_out(soap, soap_xsd__double2s(soap, *a), 0)) {
    return soap->error;
  }
  return soap_element_end_out(soap, tag);
}

SOAP_FMAC3 int SOAP_FMAC4 soap_s2xsd__double(struct soap* soap, const char* s, double* a) {
  return soap_s2double(soap, s, a);
}

SOAP_FMAC3 double* SOAP_FMAC4 soap_in_xsd__double(struct soap* soap, const char* tag, double* a, const char* type) {
  return soap_indouble(soap, tag, a, type, SOAP_TYPE_xsd__double);
}
