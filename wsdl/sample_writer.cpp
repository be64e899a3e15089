#include "wsdl/sample_writer.h"
