// ThreadSanitizer annotations for the contended path of Swift's Synchronization.Mutex on Linux,
// linked into the executables of the ThreadSanitizer build only (scripts/sanitize.sh).
//
// Mutex.withLock inlines its fast path (one compare-and-swap, which TSan sees) into our code, but
// when the lock is contended it calls _MutexHandle._lockSlow / _unlockSlow / _tryLockSlow in
// libswiftSynchronization.so. That library is not instrumented and takes the lock with its own
// compare-and-swap or a FUTEX_LOCK_PI system call, neither of which TSan sees: every contended
// withLock then looks like a race between the two critical sections ("Swift access race" on the
// Mutex's value), although the lock is held. This file puts a definition of each of those three
// functions into the executable, ahead of the library's: it calls the library's own (found with
// dlsym(RTLD_NEXT)) and tells TSan about the lock with __tsan_acquire / __tsan_release on the
// Mutex's address, as TSan's documentation asks of locks it cannot see. Nothing is suppressed: a
// value touched outside the lock is still reported.
//
// Swift's calling convention passes `self` (the address of the _MutexHandle, a borrowed
// non-copyable struct) in r13 and the first argument in rdi; the trampolines keep both. x86_64
// only, as is CI.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(__x86_64__)
#error "swift-mutex-tsan.c: x86_64 only"
#endif

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"

__attribute__((visibility("hidden"))) void *xpb_real_lock_slow;
__attribute__((visibility("hidden"))) void *xpb_real_unlock_slow;
__attribute__((visibility("hidden"))) void *xpb_real_try_lock_slow;

static void *library_function(const char *name) {
    void *function = dlsym(RTLD_NEXT, name);
    if (function == NULL) {
        fprintf(stderr, "swift-mutex-tsan: %s not found in libswiftSynchronization: %s\n", name, dlerror());
        abort();
    }
    return function;
}

// Before main; no Mutex is contended before the executable's constructors run (no thread runs yet).
__attribute__((constructor(101))) static void find_library_functions(void) {
    xpb_real_lock_slow = library_function(LOCK_SLOW);
    xpb_real_unlock_slow = library_function(UNLOCK_SLOW);
    xpb_real_try_lock_slow = library_function(TRY_LOCK_SLOW);
}

__asm__(
    ".text\n"

    // _lockSlow(selfId): the library takes the lock; then TSan acquires it.
    ".globl \"" LOCK_SLOW "\"\n"
    ".type \"" LOCK_SLOW "\", @function\n"
    "\"" LOCK_SLOW "\":\n"
    "    pushq %rbx\n"                      // also aligns the stack for the calls
    "    movq %r13, %rbx\n"                 // the Mutex's address
    "    callq *xpb_real_lock_slow(%rip)\n" // r13 and rdi as our caller gave them
    "    movq %rbx, %rdi\n"
    "    callq __tsan_acquire@PLT\n"
    "    popq %rbx\n"
    "    retq\n"
    ".size \"" LOCK_SLOW "\", .-\"" LOCK_SLOW "\"\n"

    // _unlockSlow(): TSan releases the lock; then the library does.
    ".globl \"" UNLOCK_SLOW "\"\n"
    ".type \"" UNLOCK_SLOW "\", @function\n"
    "\"" UNLOCK_SLOW "\":\n"
    "    pushq %r13\n"
    "    movq %r13, %rdi\n"
    "    callq __tsan_release@PLT\n"
    "    popq %r13\n"
    "    jmpq *xpb_real_unlock_slow(%rip)\n"
    ".size \"" UNLOCK_SLOW "\", .-\"" UNLOCK_SLOW "\"\n"

    // _tryLockSlow() -> Bool: when the library took the lock, TSan acquires it.
    ".globl \"" TRY_LOCK_SLOW "\"\n"
    ".type \"" TRY_LOCK_SLOW "\", @function\n"
    "\"" TRY_LOCK_SLOW "\":\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    subq $8, %rsp\n"
    "    movq %r13, %rbx\n"
    "    callq *xpb_real_try_lock_slow(%rip)\n"
    "    movl %eax, %r12d\n"
    "    testb %al, %al\n"
    "    jz 1f\n"
    "    movq %rbx, %rdi\n"
    "    callq __tsan_acquire@PLT\n"
    "1:  movl %r12d, %eax\n"
    "    addq $8, %rsp\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    retq\n"
    ".size \"" TRY_LOCK_SLOW "\", .-\"" TRY_LOCK_SLOW "\"\n");
