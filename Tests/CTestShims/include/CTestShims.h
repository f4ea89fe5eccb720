#ifndef CTESTSHIMS_H
#define CTESTSHIMS_H

// The glibc functions the tests' process spawner needs and the Glibc module does not import:
// spawn.h declares them only under _GNU_SOURCE, which Swift's Glibc module is built without.
// Declared here with glibc's own prototypes (shims.c checks them against <spawn.h>).

#include <spawn.h>

/// The child closes every descriptor from `from` up before it executes (glibc 2.34).
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// The child changes to `path` before it executes (glibc 2.29).
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict actions,
                                         const char *__restrict path);

#endif
