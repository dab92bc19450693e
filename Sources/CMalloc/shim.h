#ifndef SPLASHD_CMALLOC_SHIM_H
#define SPLASHD_CMALLOC_SHIM_H
// glibc's malloc extensions (malloc_trim), which Swift's Glibc module does not bring in.
#include <malloc.h>
#endif
