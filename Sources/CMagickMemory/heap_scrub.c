// Zeroed heap for libheif's decodes (see include/CMagickMemory.h).
//
// Why: libde265 (libheif's HEVC decoder) allocates its picture with malloc and writes only the
// blocks the stream codes; a slice cut short leaves the rest as whatever the heap held, and
// libheif 1.15 reports success without a warning. In a decode worker that has served other files,
// that is their pixels, strings and pointers, shown in this file's thumbnail. glibc's M_PERTURB
// fills what malloc hands out with the complement of its byte: 0xFF makes every new allocation
// zero (and every freed one 0xFF), so the uncoded blocks read as zero, the same on every run.
//
// M_PERTURB is not applied to the chunks a thread keeps for reuse (tcache: up to 7 of each size to
// 1,032 bytes), which serve a small picture's planes (a chroma plane of 64x64 pixels or less)
// as they were freed. While scrubbing, the calling thread takes its cached chunks out of the way
// (`held`), so that the decode's small requests too come from the arena, zeroed; they go back when
// it ends. libde265's own threads start with each decode, their caches empty.

#define _GNU_SOURCE
#include "CMagickMemory.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t scrub_lock = PTHREAD_MUTEX_INITIALIZER;
/// Scrubbed decodes running in this process: M_PERTURB is set from the first's start to the last's end.
static int scrubbing;
static int perturbing;

/// glibc's tcache: 64 sizes of chunk (32 to 1,040 bytes, requests of 24 + 16 k bytes), 7 of each
/// by default (glibc.malloc.tcache_count); one more than that is taken of each size.
enum { cached_sizes = 64, taken_each = 8 };

/// This thread's open stretches (one inside another drains nothing more) and the chunks the
/// outermost holds aside.
static _Thread_local int depth;
static _Thread_local int held_count;
static _Thread_local void *held[cached_sizes * taken_each];

int cmm_scrub_enter(void) {
    pthread_mutex_lock(&scrub_lock);
    if (scrubbing++ == 0) perturbing = mallopt(M_PERTURB, 0xFF) == 1;
    int effective = perturbing;
    pthread_mutex_unlock(&scrub_lock);
    if (depth++ == 0 && effective) {
        for (int size = 0; size < cached_sizes; size++) {
            for (int taken = 0; taken < taken_each; taken++) {
                void *chunk = malloc(24 + 16 * (size_t)size);
                if (chunk != NULL) held[held_count++] = chunk;
            }
        }
    }
    return effective;
}

/// The byte the program started with: MALLOC_PERTURB_, as glibc reads it (someone debugging
/// their own heap), given back when the last scrubbed decode ends. (glibc has no call that says the
/// byte in force; one set with GLIBC_TUNABLES's glibc.malloc.perturb is not seen, and ends as 0.)
static int perturb_at_start(void) {
    const char *given = getenv("MALLOC_PERTURB_");
    return given != NULL ? atoi(given) & 0xFF : 0;
}

void cmm_scrub_leave(void) {
    if (--depth == 0) {
        for (int index = 0; index < held_count; index++) free(held[index]);
        held_count = 0;
    }
    pthread_mutex_lock(&scrub_lock);
    if (--scrubbing == 0 && perturbing) {
        mallopt(M_PERTURB, perturb_at_start());
        perturbing = 0;
    }
    pthread_mutex_unlock(&scrub_lock);
}
