#ifndef SPLASHD_CLINUX_SHIM_H
#define SPLASHD_CLINUX_SHIM_H
// glibc's Linux extensions that Swift's Glibc module leaves out (they need _GNU_SOURCE, which the
// module was built without): malloc_trim and mallinfo2, and sync_file_range.
#include <malloc.h>

#define SPLASHD_SYNC_FILE_RANGE_WRITE 2
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);
#endif
