/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef CHEAP_H
#define CHEAP_H

/// Returns the heap's free memory to the system (glibc's malloc_trim(0)).
/// Swift's Glibc module does not import <malloc.h>. Returns 1 when memory
/// was released; 0 where the C library has no such call.
int cheap_release_free_memory(void);

/// Serves every allocation of `bytes` or more with its own mapping, which
/// goes back to the system when freed (glibc's mallopt(M_MMAP_THRESHOLD)).
/// Setting it also stops glibc from raising the threshold after each large
/// free. Returns 1 when set; 0 where the C library has no such call.
int cheap_map_blocks_from(int bytes);

/// Lets the C library keep at most `count` heaps for all threads (glibc's
/// mallopt(M_ARENA_MAX)); takes effect for threads that have not
/// allocated yet. Returns 1 when set; 0 where the C library has no such call.
int cheap_limit_arenas(int count);

#endif
