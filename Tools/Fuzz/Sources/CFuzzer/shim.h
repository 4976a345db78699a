// libFuzzer's driver, for a `main` of our own: SwiftPM links an executable's entry point as `main` itself, so
// libFuzzer's own `main` is never linked in (see Sources/MalibuFuzz/Entry.swift).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
