#ifndef SPLASHD_CLINUX_SHIM_H
#define SPLASHD_CLINUX_SHIM_H
// glibc's Linux extensions that Swift's Glibc module leaves out (they need _GNU_SOURCE, which the
// module was built without): malloc_trim, mallinfo2 and mallopt, sync_file_range, preadv2, and
// dl_iterate_phdr, with the one use splashd makes of it.
#include <elf.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define SPLASHD_SYNC_FILE_RANGE_WRITE 2
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);

// A read that takes only what the page cache holds, and says EAGAIN rather than wait for the disk.
#define SPLASHD_RWF_NOWAIT 0x00000008
extern ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);

// The leading members of glibc's struct dl_phdr_info (link.h, under _GNU_SOURCE).
struct splashd_dl_phdr_info {
    Elf64_Addr dlpi_addr;
    const char *dlpi_name;
    const Elf64_Phdr *dlpi_phdr;
    Elf64_Half dlpi_phnum;
};
extern int dl_iterate_phdr(int (*callback)(struct splashd_dl_phdr_info *, size_t, void *), void *data);

// Whether a loaded object's text was relocated in place (DT_TEXTREL): its read-only pages are then
// its own, not the file's.
static inline int splashd_has_text_relocations(const struct splashd_dl_phdr_info *info) {
    for (Elf64_Half i = 0; i < info->dlpi_phnum; i++) {
        const Elf64_Phdr *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_DYNAMIC) continue;
        for (const Elf64_Dyn *entry = (const Elf64_Dyn *)(info->dlpi_addr + segment->p_vaddr); entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static inline int splashd_release_object(struct splashd_dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "linux-vdso")) return 0;
    if (splashd_has_text_relocations(info)) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    size_t *released = data;
    for (Elf64_Half i = 0; i < info->dlpi_phnum; i++) {
        const Elf64_Phdr *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W)) continue;
        // Only whole pages inside the segment: a page it shares with a writable neighbour stays.
        uintptr_t start = (info->dlpi_addr + segment->p_vaddr + page - 1) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_filesz) & ~(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) == 0) *released += end - start;
    }
    return 0;
}

// Unmaps the pages of every loaded object's read-only segments (code, constants): clean copies of
// their files, which the page cache keeps. The loader's lock is held throughout, so no object is
// unloaded (and its addresses reused) meanwhile. Returns the bytes of the ranges let go.
static inline size_t splashd_release_read_only_segments(void) {
    size_t released = 0;
    dl_iterate_phdr(splashd_release_object, &released);
    return released;
}
#endif
