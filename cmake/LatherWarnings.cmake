# lather_warnings: an INTERFACE target carrying the strict warning flags for Lather's own code.
# Generated gSOAP code does not link it (its headers are SYSTEM includes), so warnings stay ours.
add_library(lather_warnings INTERFACE)
target_compile_options(lather_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                                 -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual)
