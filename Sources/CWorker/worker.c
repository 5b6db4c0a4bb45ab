// The process side of MagickIO's decode workers (Isolation): the entry a worker takes before
// main, the spawn, descriptor passing and limits. C because a constructor, posix_spawn's file
// actions and SCM_RIGHTS control messages are C's (macros Swift cannot call).
#define _GNU_SOURCE
#include "CWorker.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <unistd.h>

extern char **environ;

/// The worker's loop, in Swift (Isolation/Worker.swift); never returns. Weak, so that a program
/// that links this file without MagickIO's Swift part still starts.
extern void magickio_worker_main(int socket) __attribute__((weak));

/// Before main: a process started by mio_worker_spawn becomes a worker and never reaches the
/// program's own main, whatever the program is (a tool, a server, the test runner).
__attribute__((constructor)) static void mio_worker_entry(void) {
    const char *value = getenv(MIO_WORKER_ENV);
    if (value == NULL || magickio_worker_main == NULL) return;
    int socket = atoi(value);
    unsetenv(MIO_WORKER_ENV);
    // A worker decodes one image after another. Left to itself, glibc hands a freed block of a few
    // hundred KiB (a thumbnail's pixel cache, a read buffer) back to the kernel and the next image
    // faults it in again, page by page (about 75 pages a 256 px thumbnail): blocks under 2 MiB stay
    // in the heap, and the free top of each arena is handed back only past 4 MiB (an idle worker
    // holds about that much more). Larger blocks are mapped on their own and returned when freed.
    // (Set, the thresholds no longer grow by themselves, as glibc's do, up to 32 MiB.)
    mallopt(M_MMAP_THRESHOLD, 2 << 20);
    mallopt(M_TRIM_THRESHOLD, 4 << 20);
    // A worker ends when its host closes the socket, or when the host ends: the kernel closes
    // it then. (Not PR_SET_PDEATHSIG: it fires when the host *thread* that started the worker
    // ends, and MagickIO's threads come and go.)
    magickio_worker_main(socket);
    _exit(0);
}

pid_t mio_worker_spawn(int child_socket) {
    char variable[64];
    snprintf(variable, sizeof variable, "%s=3", MIO_WORKER_ENV);
    // No per-thread cache of small chunks in a worker (glibc.malloc.tcache_count=0, after any
    // tunables the host was given, so that it wins): chunks from that cache are handed out as they
    // were freed, even while a libheif decode has malloc zero what it hands out (HeapScrub), and
    // a worker's heap holds the files it served before.
    static const char tunables_name[] = "GLIBC_TUNABLES=", no_tcache[] = "glibc.malloc.tcache_count=0";
    const char *tunables = getenv("GLIBC_TUNABLES");
    size_t tunables_length = sizeof tunables_name + (tunables != NULL ? strlen(tunables) + 1 : 0) + sizeof no_tcache;
    char *tunables_variable = malloc(tunables_length);
    if (tunables_variable == NULL) return -1;
    snprintf(tunables_variable, tunables_length, "%s%s%s%s", tunables_name, tunables != NULL ? tunables : "",
             tunables != NULL ? ":" : "", no_tcache);
    size_t count = 0;
    while (environ[count] != NULL) count++;
    char **environment = calloc(count + 4, sizeof(char *));
    if (environment == NULL) {
        free(tunables_variable);
        return -1;
    }
    size_t kept = 0;
    for (size_t index = 0; index < count; index++) {
        if (strncmp(environ[index], MIO_WORKER_ENV "=", strlen(MIO_WORKER_ENV) + 1) != 0
            && strncmp(environ[index], tunables_name, strlen(tunables_name)) != 0) environment[kept++] = environ[index];
    }
    environment[kept++] = variable;
    environment[kept++] = tunables_variable;
    // A worker's crash is its host's to report (as a typed error): no Swift backtrace on stderr,
    // and no backtracer's signal handlers in the way of the worker's own (mio_worker_handle_crashes).
    if (getenv("SWIFT_BACKTRACE") == NULL) environment[kept++] = "SWIFT_BACKTRACE=enable=no";
    environment[kept] = NULL;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, child_socket, 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Signals the host blocks or ignores are not the worker's.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    char executable[] = "/proc/self/exe";
    char *arguments[] = {executable, NULL};
    pid_t pid = -1;
    int status = posix_spawn(&pid, executable, &actions, &attributes, arguments, environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    free(environment);
    free(tunables_variable);
    if (status != 0) {
        errno = status;
        return -1;
    }
    return pid;
}

int mio_worker_send(int socket, const void *bytes, size_t length, int descriptor) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    for (;;) {
        ssize_t sent = sendmsg(socket, &message, MSG_NOSIGNAL);
        if (sent >= 0) return 0;
        if (errno != EINTR) return -1;
    }
}

ssize_t mio_worker_receive(int socket, void *bytes, size_t capacity, int *descriptor) {
    *descriptor = -1;
    struct iovec vector = {.iov_base = bytes, .iov_len = capacity};
    union {
        char buffer[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer,
                             .msg_controllen = sizeof control.buffer};
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < count; index++) {
            int received_descriptor;
            memcpy(&received_descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*descriptor < 0) {
                *descriptor = received_descriptor;
            } else {
                close(received_descriptor);
            }
        }
    }
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        if (*descriptor >= 0) close(*descriptor);
        *descriptor = -1;
        errno = EMSGSIZE;
        return -1;
    }
    return received;
}

/// The data segment in bytes from /proc/self/status, with system calls only (a signal handler
/// calls it); -1 when unreadable.
static long long data_segment_now(void) {
    char buffer[4096];
    int file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (file < 0) return -1;
    ssize_t length = read(file, buffer, sizeof buffer - 1);
    close(file);
    if (length <= 0) return -1;
    buffer[length] = '\0';
    for (char *line = buffer; line != NULL && *line != '\0'; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "VmData:", 7) != 0) continue;
        long long kib = 0;
        for (char *digit = line + 7; *digit != '\0' && *digit != '\n'; digit++) {
            if (*digit >= '0' && *digit <= '9') kib = kib * 10 + (*digit - '0');
        }
        return kib * 1024;
    }
    return -1;
}

static void crashed(int signal_number) {
    // A crash with the data segment at its limit is an allocation the kernel refused (a Swift
    // allocation traps, some C libraries abort): the host reports it as memory, not as a crash.
    struct rlimit limit;
    long long data = data_segment_now();
    if (data >= 0 && getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
        && (unsigned long long)data + (64ULL << 20) >= (unsigned long long)limit.rlim_cur) {
        _exit(MIO_WORKER_EXIT_MEMORY);
    }
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

void mio_worker_handle_crashes(void) {
    static char stack[64 << 10];
    stack_t alternate = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    sigaltstack(&alternate, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crashed;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) sigaction(signals[index], &action, NULL);
}

int mio_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int mio_answer_file(const char *name, size_t size) {
    int file = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (file < 0) return -1;
    if (ftruncate(file, (off_t)size) != 0 || fcntl(file, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int failure = errno;
        close(file);
        errno = failure;
        return -1;
    }
    return file;
}

int mio_size_sealed(int file) {
    // On tmpfs (shmem) only: a huge-page memory file can be sealed too, but a hole punched in it
    // reads as SIGBUS when the pool is empty, where one in tmpfs reads as zeros.
    struct statfs system;
    if (fstatfs(file, &system) != 0 || system.f_type != TMPFS_MAGIC) return 0;
    int seals = fcntl(file, F_GET_SEALS);
    return seals >= 0 && (seals & F_SEAL_SHRINK) != 0;
}

int mio_under_sanitizer(void) {
    return dlsym(RTLD_DEFAULT, "__asan_init") != NULL || dlsym(RTLD_DEFAULT, "__tsan_init") != NULL
        || dlsym(RTLD_DEFAULT, "__msan_init") != NULL;
}

int mio_worker_limit(pid_t pid, unsigned long long data_bytes, unsigned long long cpu_seconds) {
    struct rlimit data = {.rlim_cur = data_bytes, .rlim_max = data_bytes};
    if (prlimit(pid, RLIMIT_DATA, &data, NULL) != 0) return -1;
    if (cpu_seconds > 0) {
        // The soft limit sends SIGXCPU, the hard one a second later SIGKILL.
        struct rlimit cpu = {.rlim_cur = cpu_seconds, .rlim_max = cpu_seconds + 1};
        if (prlimit(pid, RLIMIT_CPU, &cpu, NULL) != 0) return -1;
    }
    return 0;
}

long long mio_data_segment(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "re");
    if (file == NULL) return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "VmData:", 7) == 0) {
            kib = strtoll(line + 7, NULL, 10);
            break;
        }
    }
    fclose(file);
    return kib < 0 ? -1 : kib * 1024;
}
