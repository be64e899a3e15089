// A small gSOAP service for tests/interop/wsdl (the "peers" service of foreign_wsdl.py): soapcpp2 turns this
// header into calc.wsdl + ns.xsd (document/literal) and the server skeleton that calc_server.cpp serves.
//   soapcpp2 -S -L -x -d DIR calc.h
// The soap:address below is a dead one on purpose (nobody listens on port 1): the test calls it to see
// exit 3, and gives the live server's address with --url / the stress URL.

//gsoap ns service name: calc
//gsoap ns service style: document
//gsoap ns service encoding: literal
//gsoap ns service namespace: urn:calc
//gsoap ns service location: http://127.0.0.1:1/calc
//gsoap ns schema form: qualified

#import "stl.h"

/// A point of the plane.
class ns__point {
 public:
  double x 1;  ///< required
  double y 1;  ///< required
  std::string *label 0;  ///< optional
};

/// A rectangle given by two corners.
class ns__box {
 public:
  ns__point lower 1;
  ns__point upper 1;
};

/// The answer of area: a struct.
class ns__boxInfo {
 public:
  double area 1;
  double width 1;
  double height 1;
  std::string label 1;  ///< the lower corner's label, or "box"
};

/// add(a, b) = a + b
int ns__add(double a, double b, double *result);

/// divide(dividend, divisor) = dividend / divisor; divisor 0 = a Client fault "Division by zero"
int ns__divide(int dividend, int divisor, int *quotient);

/// area(box) = the box's area, width, height and label (a struct in, a struct out)
int ns__area(ns__box *box, ns__boxInfo *info);

/// concat(first, second) = first + second
int ns__concat(std::string first, std::string second, std::string *result);
