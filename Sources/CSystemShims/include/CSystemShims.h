// libc declarations that Swift's Glibc module leaves out, for the package's Swift targets.
// Declarations only; a static inline shim joins them only where a macro or a variadic function
// needs wrapping, named after what it wraps.
#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H

#include <malloc.h>   // mallopt, M_TRIM_THRESHOLD, M_MMAP_THRESHOLD: no part of the Glibc module
#include <pthread.h>
#include <spawn.h>

// glibc declares these only under _GNU_SOURCE, and defining it here does not work: the Glibc
// module is built without it, and libc headers read with other feature macros clash with that
// module (fd_set's member is `fds_bits` with _GNU_SOURCE, `__fds_bits` without). So glibc's
// declarations are repeated as they are; C accepts the repeat where glibc's own is visible too.
#ifndef __USE_GNU
extern int pthread_setname_np(pthread_t __target_thread, const char *__name);
#if __GLIBC_PREREQ(2, 34)
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *__actions, int __from);
#endif
#endif

#endif
