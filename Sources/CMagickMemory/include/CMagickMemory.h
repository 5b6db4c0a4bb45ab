#ifndef CMAGICKMEMORY_H
#define CMAGICKMEMORY_H

// ImageMagick's heap, counted per decode: the three memory methods MagickIO installs with
// SetMagickMemoryMethods (malloc, realloc and free underneath, so memory from before or from
// elsewhere stays compatible), and the calling thread's budget they count against.
// libc only; MagickIO's Wand/ installs the methods (MagickRuntime) and opens budgets (HeapBudget).
// Beside them, the zeroed heap libheif's decodes run on (heap_scrub.c, HeapScrub).

#include <stddef.h>

/// One decode's share of ImageMagick's heap. Counted in malloc_usable_size bytes; `used` may go
/// below zero when memory acquired before the budget opened is freed under it.
typedef struct CMMBudget {
    long long limit;
    long long used;
    long long peak;
    /// The first request refused: its size and what was in use then (0 when none was).
    long long refused_bytes;
    long long used_at_refusal;
    /// How many requests were refused.
    long long refusals;
} CMMBudget;

/// ImageMagick's AcquireMemoryHandler, ResizeMemoryHandler and DestroyMemoryHandler.
void *cmm_acquire(size_t size);
void *cmm_resize(void *memory, size_t size);
void cmm_destroy(void *memory);

/// Makes `budget` (or none, with NULL) the calling thread's, and returns the one it replaces.
CMMBudget *cmm_swap_budget(CMMBudget *budget);

/// Resolves the shared objects' names once, before any budget can refuse (dladdr's first call
/// may allocate): called where the methods are installed.
void cmm_prepare(void);

/// Opens a scrubbed stretch on the calling thread (heap_scrub.c): while any is open in the process,
/// what glibc's malloc hands out is zeroed, and the thread's cached small chunks are held aside.
/// 1 when malloc now zeroes, 0 when it cannot (glibc's malloc is not the one in use). Each call is
/// closed by `cmm_scrub_leave` on the same thread; stretches may nest.
int cmm_scrub_enter(void);
void cmm_scrub_leave(void);

#endif
