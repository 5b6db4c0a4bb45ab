// libFuzzer's driver entry point (compiler-rt, FuzzerInterface.h), which `-sanitize=fuzzer` links
// in from the toolchain's libclang_rt.fuzzer. Declared here because the toolchain ships no header.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
