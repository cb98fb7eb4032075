# cmake -DPTX=file.ptx -DOUT=file.cpp -DNAME=kSymbol -P EmbedPtx.cmake
# Writes a C++ source defining predatar::libraries::NAME as the PTX text.
file(READ ${PTX} text)
file(WRITE ${OUT} "// Generated from ${PTX} by src/libraries/EmbedPtx.cmake.\n"
                  "namespace predatar::libraries {\n"
                  "extern const char ${NAME}[];\n"
                  "const char ${NAME}[] = R\"predatar_ptx(${text})predatar_ptx\";\n"
                  "}  // namespace predatar::libraries\n")
