#ifndef MAGICKIO_CWORKER_H
#define MAGICKIO_CWORKER_H

#include <stddef.h>
#include <sys/types.h>

/// The environment variable that makes a process started from the same executable a decode
/// worker: its value is the descriptor of the worker's socket.
#define MIO_WORKER_ENV "MAGICKIO_WORKER_FD"

/// The exit status of a worker that crashed with its data segment at its limit: an allocation
/// the kernel refused.
#define MIO_WORKER_EXIT_MEMORY 86

/// In a worker: a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE) with the data segment
/// at its limit ends the worker with MIO_WORKER_EXIT_MEMORY; any other crash ends it by its signal.
void mio_worker_handle_crashes(void);

/// Starts this executable again as a decode worker whose socket is `child_socket` (given to it
/// as descriptor 3; every other inherited descriptor above 2 closed). Returns the child's pid, or
/// -1 with errno set.
pid_t mio_worker_spawn(int child_socket);

/// Sends `length` bytes from `bytes` on the SOCK_SEQPACKET socket `socket` as one message, with
/// the descriptor `descriptor` attached when it is 0 or more. Returns 0, or -1 with errno set.
int mio_worker_send(int socket, const void *bytes, size_t length, int descriptor);

/// Receives one message into `bytes` (at most `capacity`), and the descriptor attached to it
/// into `descriptor` (-1 when none; any others are closed). Returns the message's length, 0 at
/// the end of the stream, or -1 with errno set (EMSGSIZE when the message was cut).
ssize_t mio_worker_receive(int socket, void *bytes, size_t capacity, int *descriptor);

/// An anonymous memory file (`memfd_create`, close-on-exec), or -1 with errno set.
int mio_memory_file(const char *name);

/// An anonymous memory file of `size` bytes whose size is sealed for good (it can neither shrink
/// nor grow): what a worker answers in. Or -1 with errno set.
int mio_answer_file(const char *name, size_t size);

/// Whether the memory file `file` (in tmpfs, not huge pages) can no longer shrink: a host maps a
/// worker's answer only then, so that a worker (perhaps taken over by a hostile file) cannot cut
/// the file under the host's mapping and end the host with SIGBUS as it reads.
int mio_size_sealed(int file);

/// Sets `pid`'s soft and hard limit on its data segment (RLIMIT_DATA) and on its CPU time
/// (RLIMIT_CPU, in seconds; 0: none). Returns 0, or -1 with errno set.
int mio_worker_limit(pid_t pid, unsigned long long data_bytes, unsigned long long cpu_seconds);

/// Whether this program runs under AddressSanitizer, ThreadSanitizer or MemorySanitizer, whose
/// shadow memory (terabytes of reserved mappings) is counted in the data segment: a worker is then
/// given no data-segment limit.
int mio_under_sanitizer(void);

/// In a worker: installs its seccomp filter (no network, no exec, and unless `allow_files`, no
/// new or changed files; a refused call fails with EPERM). Returns 0, or -1 with errno set where
/// the kernel or the architecture has no seccomp filters.
int mio_worker_sandbox(int allow_files);

/// Tests only, in a worker: tries to open a TCP socket, to exec /bin/true and to create a file in
/// /tmp, and gives each attempt's errno (0: it worked; an exec that works ends the worker).
void mio_worker_try_escape(int *socket_errno, int *exec_errno, int *create_errno);

/// The process's data segment now (VmData, in bytes), or -1.
long long mio_data_segment(pid_t pid);

#endif
