// The decode worker's seccomp filter: no network, no exec, no new or changed files (unless the
// caller allows them: ImageMagick 7's TIFF coder writes temporary files). Set in the
// worker itself, once, before its first request (PR_SET_NO_NEW_PRIVS lets an unprivileged
// process install it). A refused call fails with EPERM, so a coder that tries one reports an
// error instead of killing the worker; nothing the decoders need is refused: reading files
// (ImageMagick opens the source by its /proc name, libheif's plugins are dlopen'd), memory files
// (the answer), threads, and the worker's own socket, inherited.
#define _GNU_SOURCE
#include "CWorker.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define MIO_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define MIO_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define REFUSE(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
// An open whose flags (argument `arg`, low 32 bits) ask to write, create or truncate is refused.
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)
#define OPEN_READ_ONLY(nr, arg) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4), \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[arg])), \
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1), \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM), \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int mio_worker_sandbox(int allow_files) {
#ifndef MIO_AUDIT_ARCH
    (void)allow_files;
    errno = ENOSYS;
    return -1;
#else
    struct sock_filter head[] = {
        // Another architecture's calls (a 32-bit int 0x80 on x86_64) are not these numbers: refused.
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MIO_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        LOAD(nr),
#if defined(__x86_64__)
        // x32 calls (bit 30) are another numbering of the same calls.
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
        // No network: no new socket of any kind (the worker's own came with it), no connection.
        REFUSE(__NR_socket), REFUSE(__NR_socketpair), REFUSE(__NR_connect), REFUSE(__NR_bind),
        REFUSE(__NR_listen), REFUSE(__NR_accept), REFUSE(__NR_accept4),
        // No exec, no new process (threads are clone's with CLONE_THREAD, which stays allowed),
        // no tracing.
        REFUSE(__NR_execve), REFUSE(__NR_execveat), REFUSE(__NR_ptrace),
#ifdef __NR_fork
        REFUSE(__NR_fork), REFUSE(__NR_vfork),
#endif
    };
    struct sock_filter files[] = {
        // No new, removed, renamed or changed files.
#ifdef __NR_creat
        REFUSE(__NR_creat), REFUSE(__NR_mkdir), REFUSE(__NR_unlink), REFUSE(__NR_rmdir), REFUSE(__NR_rename),
        REFUSE(__NR_link), REFUSE(__NR_symlink), REFUSE(__NR_chmod), REFUSE(__NR_chown), REFUSE(__NR_lchown),
#endif
        REFUSE(__NR_mkdirat), REFUSE(__NR_mknodat), REFUSE(__NR_unlinkat), REFUSE(__NR_renameat),
        REFUSE(__NR_renameat2), REFUSE(__NR_linkat), REFUSE(__NR_symlinkat), REFUSE(__NR_truncate),
        REFUSE(__NR_fchmodat), REFUSE(__NR_fchownat),
        // openat2's flags sit in a structure a filter cannot read: refused (glibc's open uses openat).
        REFUSE(__NR_openat2),
#ifdef __NR_open
        OPEN_READ_ONLY(__NR_open, 1),
#endif
        OPEN_READ_ONLY(__NR_openat, 2),
    };
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    enum { heads = sizeof head / sizeof head[0], fileRules = sizeof files / sizeof files[0] };
    struct sock_filter filter[heads + fileRules + 1];
    size_t length = 0;
    for (size_t i = 0; i < heads; i++) filter[length++] = head[i];
    if (!allow_files) {
        for (size_t i = 0; i < fileRules; i++) filter[length++] = files[i];
    }
    filter[length++] = allow;
    struct sock_fprog program = {.len = (unsigned short)length, .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : -1;
#endif
}

void mio_worker_try_escape(int *socket_errno, int *exec_errno, int *create_errno) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    *socket_errno = s >= 0 ? 0 : errno;
    if (s >= 0) close(s);
    char *const argv[] = {"/bin/true", NULL};
    char *const envp[] = {NULL};
    execve("/bin/true", argv, envp);  // returns only when it failed
    *exec_errno = errno;
    char name[] = "/tmp/magickio-worker-escape-XXXXXX";
    int f = mkstemp(name);
    *create_errno = f >= 0 ? 0 : errno;
    if (f >= 0) {
        close(f);
        unlink(name);
    }
}
