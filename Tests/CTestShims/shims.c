// Compiles the declarations of CTestShims.h against glibc's own, so that a mismatch fails the
// build instead of the spawn.
#define _GNU_SOURCE
#include <spawn.h>
#include "CTestShims.h"
