// The counting allocator under ImageMagick's heap (see include/CMagickMemory.h).
//
// The rule that keeps ImageMagick 6 alive: a request is refused only when the code that asked
// for it lies outside libMagickCore and libMagickWand. ImageMagick's fatal paths (AcquireCritical-
// Memory, AcquireString, AcquireStringInfo, ConcatenateString, the splay trees, hash maps and
// semaphores: ThrowFatalException, which ends the process with _exit) all live in libMagickCore,
// so none of them ever sees a refusal. What remains are the coders' own requests (a TIFF's strip
// buffer, a PSD's layers, ...) and those of the libraries a coder hands ImageMagick's allocator
// to (libpng through the PNG coder's Magick_png_malloc), which fail as a reader exception or
// png_error. Debian's 6.9.11-60 build makes that caller visible as our return address:
// AcquireQuantumMemory and AcquireMagickMemory reach the method by tail calls (jmp), so the
// return address is in whoever called AcquireQuantumMemory/AcquireMagickMemory. A build that does
// not tail-call shows libMagickCore there, and then nothing is ever refused (the backstop is
// inert, never fatal). ResizeMagickMemory calls the method and checks the result itself, so a
// resize always shows libMagickCore: resizes are counted, never refused (ConcatenateString and
// SetStringInfoLength resize, and are fatal).

#define _GNU_SOURCE
#include "CMagickMemory.h"

#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local CMMBudget *current;

/// Requests under this are never refused: structures and short strings, whose failure a coder
/// is least likely to check. Past the share, they are still counted.
static const size_t smallest_refusal = 4096;

CMMBudget *cmm_swap_budget(CMMBudget *budget) {
    CMMBudget *previous = current;
    current = budget;
    return previous;
}

static int in_imagemagick_core(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fname == NULL) {
        // Unknown code: assume the worst caller, one that cannot survive a refusal.
        return 1;
    }
    return strstr(info.dli_fname, "libMagickCore") != NULL || strstr(info.dli_fname, "libMagickWand") != NULL;
}

void cmm_prepare(void) {
    (void)in_imagemagick_core((const void *)&cmm_prepare);
}

static void count(CMMBudget *budget, long long bytes) {
    budget->used += bytes;
    if (budget->used > budget->peak) budget->peak = budget->used;
}

// noinline: __builtin_return_address(0) must be the return address ImageMagick's tail calls left.
__attribute__((noinline)) void *cmm_acquire(size_t size) {
    CMMBudget *budget = current;
    if (budget == NULL) return malloc(size);
    if (size >= smallest_refusal
        && (size > (size_t)LLONG_MAX || budget->used + (long long)size > budget->limit)
        && !in_imagemagick_core(__builtin_return_address(0))) {
        if (budget->refusals == 0) {
            budget->refused_bytes = (long long)size;
            budget->used_at_refusal = budget->used;
        }
        budget->refusals += 1;
        return NULL;
    }
    void *memory = malloc(size);
    if (memory != NULL) count(budget, (long long)malloc_usable_size(memory));
    return memory;
}

void *cmm_resize(void *memory, size_t size) {
    CMMBudget *budget = current;
    if (budget == NULL) return realloc(memory, size);
    long long before = memory == NULL ? 0 : (long long)malloc_usable_size(memory);
    void *resized = realloc(memory, size);
    if (resized != NULL) count(budget, (long long)malloc_usable_size(resized) - before);
    return resized;
}

void cmm_destroy(void *memory) {
    CMMBudget *budget = current;
    if (budget != NULL && memory != NULL) budget->used -= (long long)malloc_usable_size(memory);
    free(memory);
}
