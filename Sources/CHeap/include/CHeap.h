#ifndef CHEAP_H
#define CHEAP_H

/// Returns the heap's free memory to the system (glibc's malloc_trim(0)).
/// Swift's Glibc module does not import <malloc.h>. Returns 1 when memory
/// was released; 0 where the C library has no such call.
int cheap_release_free_memory(void);

#endif
