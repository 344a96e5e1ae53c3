// Included first by the AVX-512 translation units: GCC 12's AVX-512 intrinsics start some results
// (inserts, extracts, conversions) from _mm512_undefined_*(), which -Wall then reports as maybe
// uninitialized at every use: a false positive of the compiler's own headers.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
