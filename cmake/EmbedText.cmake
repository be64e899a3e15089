# cmake -DINPUT=file -DOUTPUT=file.cpp -P EmbedText.cmake
# Writes a C++ source defining lather::kWsdlText, the bytes of INPUT as a string literal.
file(READ "${INPUT}" content HEX)
string(LENGTH "${content}" hex_length)
math(EXPR byte_count "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/EmbedText.cmake. Do not edit.\n"
  "#include <cstddef>\nnamespace lather {\n"
  "extern const char kWsdlText[] = {${bytes} '\\0'};\n"
  "extern const std::size_t kWsdlTextSize = ${byte_count};\n}\n")
