#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2 and inflateInit2 are macros in zlib.h; these typed wrappers make them callable from Swift.
static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
  return inflateInit2(stream, windowBits);
}

static inline int CZlib_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel,
                                     int strategy) {
  return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

#endif
