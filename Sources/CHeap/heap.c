#include "CHeap.h"
#include <stdlib.h>  /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>
int cheap_release_free_memory(void) { return malloc_trim(0); }
#else
int cheap_release_free_memory(void) { return 0; }
#endif
