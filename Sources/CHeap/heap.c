/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "CHeap.h"
#include <stdlib.h>  /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
int cheap_release_free_memory(void) { return malloc_trim(0); }
int cheap_map_blocks_from(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
int cheap_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
#else
int cheap_release_free_memory(void) { return 0; }
int cheap_map_blocks_from(int bytes) { (void)bytes; return 0; }
int cheap_limit_arenas(int count) { (void)count; return 0; }
#endif
