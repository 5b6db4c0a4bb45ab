// Zeroed heap for libheif's decodes (see include/CMagickMemory.h).
//
// Why: libde265 (libheif's HEVC decoder) allocates its picture with malloc and writes only the
// blocks the stream codes; a slice cut short leaves the rest as whatever the heap held, and
// libheif 1.15 reports success without a warning. In a decode worker that has served other files,
// that is their pixels, strings and pointers, shown in this file's thumbnail. glibc's M_PERTURB
// fills what malloc hands out with the complement of its byte: 0xFF makes every new allocation
// zero (and every freed one 0xFF), so the uncoded blocks read as zero, the same on every run.
//
// What M_PERTURB does not reach: the chunks of 1,032 bytes or less a thread keeps for reuse
// (tcache), handed out as they were freed, which serve a small picture's planes (a 4:2:0 chroma
// plane of about 32x32 or less); and the tail a realloc grows in place. A decode worker runs without
// tcache (mio_worker_spawn sets glibc.malloc.tcache_count=0), so there every small allocation is
// zeroed too. In process it is best effort: the calling thread takes 8 chunks of each cached size
// out of the way (`held`) for the decode's length, which empties its cache unless glibc refills it
// from its bins as it serves them (it moves up to 7 chunks of a size into the cache when one comes
// from a bin); libheif's and libde265's threads keep their own caches. While one scrubbed decode
// runs, every thread's allocations are zeroed, at their cost.

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

/// The byte the program started with: MALLOC_PERTURB_, read as glibc reads it (decimal, or hex
/// after 0x; past 0xFF, none), for someone debugging their own heap; given back when the last
/// scrubbed decode ends. (glibc has no call that says the byte in force; one set with
/// GLIBC_TUNABLES's glibc.malloc.perturb is not seen, and ends as 0.)
static int perturb_at_start(void) {
    const char *given = getenv("MALLOC_PERTURB_");
    if (given == NULL) return 0;
    char *end = NULL;
    unsigned long value = strtoul(given, &end, 0);
    return end != given && *end == '\0' && value <= 0xFF ? (int)value : 0;
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
