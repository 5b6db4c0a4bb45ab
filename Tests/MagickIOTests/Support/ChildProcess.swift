import Foundation

#if canImport(Glibc)
import Glibc
#endif

// Running a built executable in a child process and measuring its peak memory (Linux).
//
// Why not just wait4's ru_maxrss: glibc's posix_spawn starts the child with
// clone(CLONE_VM | CLONE_VFORK), so until it execs, the child runs on the *parent's* address space,
// and on exec the kernel folds that address space's high-water mark into the child's ru_maxrss
// (fs/exec.c, exec_mmap -> setmax_mm_hiwater_rss). A child spawned by a test runner that has ever
// held 800 MB reports at least 800 MB, even for /bin/true (fork has the same problem with the
// parent's current RSS). So the peak is instead read from the child's own /proc/<pid>/status
// VmHWM, which belongs to the address space created by exec: exactly, at the moment it exits
// (stopped there through ptrace's PTRACE_O_TRACEEXIT), or, where ptrace is not allowed, by
// sampling VmHWM while the child runs.

/// How a child process ended, what it printed, and its peak memory.
struct ChildRun: Sendable {
    /// The exit status, or 128 + the signal number when a signal ended the child (as a shell
    /// reports it).
    var status: Int32
    var stdout: Data
    var stderr: Data
    /// The child's peak resident set size in bytes: its own address space's high-water mark, not
    /// counting its descendants.
    var peakRSSBytes: Int
    /// The signal that ended the child, if one did.
    var terminatingSignal: Int32?
    /// `true` when `peakRSSBytes` is the kernel's high-water mark read as the child exited (or an
    /// ru_maxrss provably not inflated by the parent). `false` when ptrace was unavailable or the
    /// child exited before it could be attached: the value then comes from sampling every few
    /// milliseconds (a lower bound, short by at most what the child gained in its last moments),
    /// or, with no sample at all, is the inflated ru_maxrss (an upper bound).
    var peakRSSIsExact: Bool

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

enum ChildProcessError: Error, CustomStringConvertible {
    case cannotSpawn(command: String, errno: Int32)
    case cannotWait(command: String, errno: Int32)
    case timedOut(command: String, timeout: Duration, stdout: Data, stderr: Data)
    case productNotFound(name: String, directory: String)

    var description: String {
        switch self {
        case .cannotSpawn(let command, let code):
            "cannot start \(command): \(String(cString: strerror(code)))"
        case .cannotWait(let command, let code):
            "cannot wait for \(command): \(String(cString: strerror(code)))"
        case .timedOut(let command, let timeout, let stdout, let stderr):
            """
            killed after \(timeout): \(command)
            stdout (end): \(String(decoding: stdout.suffix(2000), as: UTF8.self))
            stderr (end): \(String(decoding: stderr.suffix(2000), as: UTF8.self))
            """
        case .productNotFound(let name, let directory):
            """
            the executable '\(name)' is not in \(directory), the build directory of the running \
            tests. Build it with the same configuration and scratch path as the tests, e.g. \
            `swift build --build-tests` (which builds every product) before `swift test`.
            """
        }
    }
}

/// Runs `executable` with `arguments` and waits for it, at most `timeout`.
///
/// - stdin is `/dev/null`; stdout and stderr go to temporary files (so a chatty child can never
///   block on a full pipe), read back once it has exited.
/// - `environment` replaces the parent's environment when given; `currentDirectory` is where the
///   child starts (default: the parent's).
/// - The child gets its own process group, default signal handlers and an empty signal mask, and
///   inherits no descriptor other than 0, 1 and 2.
/// - On timeout the child's whole process group is killed (SIGKILL) and `ChildProcessError.timedOut`
///   is thrown with what it had printed.
///
/// Blocks the calling thread (polling every few milliseconds); call it from a synchronous test or
/// accept that it occupies a thread of the cooperative pool while the child runs.
func runChild(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: URL? = nil, timeout: Duration
) throws -> ChildRun {
    let path = executable.path
    let command = ([path] + arguments).joined(separator: " ")

    let files = FileManager.default
    let outputDirectory = files.temporaryDirectory.appendingPathComponent("run-child-\(UUID().uuidString)")
    try files.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
    defer { try? files.removeItem(at: outputDirectory) }
    let stdoutURL = outputDirectory.appendingPathComponent("stdout")
    let stderrURL = outputDirectory.appendingPathComponent("stderr")

    // The child opens its own stdin/stdout/stderr, so the parent holds no descriptor that another
    // thread's spawn could leak.
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let writeFlags = O_WRONLY | O_CREAT | O_TRUNC  // no O_CLOEXEC: these become the child's 1 and 2
    var failures: [Int32] = [
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0),
        posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, writeFlags, 0o600),
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, writeFlags, 0o600),
        GNUSpawn.addCloseFrom(&actions, 3),
    ]
    if let currentDirectory {
        failures.append(GNUSpawn.addChdir(&actions, currentDirectory.path))
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    failures += [
        posix_spawnattr_setsigmask(&attributes, &noSignals),
        posix_spawnattr_setsigdefault(&attributes, &allSignals),
        posix_spawnattr_setpgroup(&attributes, 0),
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)),
    ]
    if let failure = failures.first(where: { $0 != 0 }) {
        throw ChildProcessError.cannotSpawn(command: command, errno: failure)
    }

    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer {
        argv.forEach { free($0) }
        envp?.forEach { free($0) }
    }
    var pid: pid_t = 0
    // posix_spawn returns once the child has exec'd (or failed to).
    let spawned = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
        ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard spawned == 0 else {
        throw ChildProcessError.cannotSpawn(command: command, errno: spawned)
    }
    // Whatever the child inherited at exec, it is at most this (a high-water mark only grows).
    let parentPeakAtSpawn = highWaterMarkKiB(of: "self") ?? Int.max
    let traced = Ptrace.seizeForExitStop(pid)

    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var sampledPeak = 0
    var peakAtExit: Int?
    var waitStatus: Int32 = 0
    var usage = rusage()
    var pause: useconds_t = 500

    /// Handles a ptrace stop of the traced child: records the peak at its exit, passes signals on.
    func resume(afterStop status: Int32) {
        let signal = (status >> 8) & 0xFF
        let event = status >> 16
        if signal == SIGTRAP && event == Ptrace.eventExit {
            peakAtExit = highWaterMarkKiB(of: "\(pid)")
            Ptrace.detach(pid)
        } else if event != 0 {
            Ptrace.resume(pid, signal: 0)  // a group stop (SIGSTOP & co.): just carry on
        } else {
            Ptrace.resume(pid, signal: signal)  // a signal on its way to the child: deliver it
        }
    }

    waiting: while true {
        let result = wait4(pid, &waitStatus, WNOHANG, &usage)
        if result == pid {
            if isStopped(waitStatus) {
                resume(afterStop: waitStatus)
                continue
            }
            break waiting
        }
        if result == -1 {
            if errno == EINTR { continue }
            throw ChildProcessError.cannotWait(command: command, errno: errno)
        }
        if let peak = highWaterMarkKiB(of: "\(pid)") {
            sampledPeak = max(sampledPeak, peak)
        }
        if clock.now >= deadline {
            kill(-pid, SIGKILL)  // its process group: the child and whatever it started
            kill(pid, SIGKILL)
            while true {
                let result = wait4(pid, &waitStatus, 0, &usage)
                if result == pid && isStopped(waitStatus) {
                    resume(afterStop: waitStatus)
                } else if result == pid || (result == -1 && errno != EINTR) {
                    break
                }
            }
            throw ChildProcessError.timedOut(
                command: command, timeout: timeout,
                stdout: (try? Data(contentsOf: stdoutURL)) ?? Data(),
                stderr: (try? Data(contentsOf: stderrURL)) ?? Data())
        }
        usleep(pause)
        pause = min(pause * 2, 5_000)
    }

    let reportedPeak = Int(usage.ru_maxrss)  // KiB on Linux; may include the parent's peak (above)
    let peakKiB: Int
    let exact: Bool
    if traced, let peakAtExit {
        (peakKiB, exact) = (peakAtExit, true)
    } else if reportedPeak > parentPeakAtSpawn {
        (peakKiB, exact) = (reportedPeak, true)  // more than the parent ever had: all the child's
    } else if sampledPeak > 0 {
        (peakKiB, exact) = (sampledPeak, false)
    } else {
        (peakKiB, exact) = (reportedPeak, false)
    }

    let signal: Int32? = isSignaled(waitStatus) ? waitStatus & 0x7F : nil
    return ChildRun(
        status: signal.map { 128 + $0 } ?? (waitStatus >> 8) & 0xFF,
        stdout: try Data(contentsOf: stdoutURL),
        stderr: try Data(contentsOf: stderrURL),
        peakRSSBytes: peakKiB * 1024,
        terminatingSignal: signal,
        peakRSSIsExact: exact)
}

/// The URL of the product `name` (an executable such as `thumbnail`) built next to the running
/// tests: on Linux SwiftPM puts the test runner (`.build/<config>/<Package>PackageTests.xctest`, an
/// executable) in the same directory as the package's executables.
func builtProduct(_ name: String) throws -> URL {
    let directory: URL
    if let resolved = realpath("/proc/self/exe", nil) {
        directory = URL(fileURLWithPath: String(cString: resolved)).deletingLastPathComponent()
        free(resolved)
    } else {
        directory = Bundle.main.bundleURL
    }
    let product = directory.appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: product.path) else {
        throw ChildProcessError.productNotFound(name: name, directory: directory.path)
    }
    return product
}

// MARK: - Helpers

private func isStopped(_ status: Int32) -> Bool { status & 0xFF == 0x7F }

private func isSignaled(_ status: Int32) -> Bool { status & 0x7F != 0 && status & 0x7F != 0x7F }

/// VmHWM (peak RSS of the current address space) from `/proc/<process>/status`, in KiB; nil once
/// the process has released its memory (exited) or when it cannot be read.
private func highWaterMarkKiB(of process: String) -> Int? {
    let descriptor = open("/proc/\(process)/status", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var length = 0
    while length < buffer.count {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + length, $0.count - length) }
        if count > 0 {
            length += count
        } else if count == 0 || errno != EINTR {
            break
        }
    }
    let text = String(decoding: buffer[0..<length], as: UTF8.self)
    // "VmHWM:\t    1724 kB"
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
    let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    return fields.count >= 2 ? Int(fields[1]) : nil
}

/// glibc's posix_spawn extensions (2.34+), declared only under _GNU_SOURCE, which Swift's Glibc
/// module is not built with: looked up at run time instead.
private enum GNUSpawn {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, CInt) -> CInt
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> CInt

    private static let closeFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let chdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    /// Closes every descriptor from `lowest` up in the child; ENOSYS before glibc 2.34.
    static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: CInt) -> CInt {
        closeFrom?(actions, lowest) ?? ENOSYS
    }

    /// Changes the child's directory to `path`; ENOSYS before glibc 2.29.
    static func addChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> CInt {
        chdir?(actions, path) ?? ENOSYS
    }
}

/// A function of the running process (libc included) by name, or nil.
private func symbol<Function>(_ name: String) -> Function? {
    guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
    return unsafeBitCast(address, to: Function.self)
}

/// The little of ptrace(2) needed to stop a child at its exit.
private enum Ptrace {
    static let eventExit: Int32 = 6  // PTRACE_EVENT_EXIT
    private static let seize: CInt = 0x4206  // PTRACE_SEIZE
    private static let cont: CInt = 7  // PTRACE_CONT
    private static let detachRequest: CInt = 17  // PTRACE_DETACH
    private static let traceExit = 0x40  // PTRACE_O_TRACEEXIT

    private typealias Function = @convention(c) (CInt, pid_t, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> CLong

    /// glibc declares ptrace variadic, which Swift cannot call; with integer and pointer arguments
    /// only, calling it through a fixed-argument pointer is ABI-compatible on Linux's x86-64 and
    /// AArch64 calling conventions.
    private static let function: Function? = symbol("ptrace")

    /// Attaches to `pid` so that it stops when it exits; false when not allowed (seccomp, Yama,
    /// gVisor...) or when the child has already exited.
    static func seizeForExitStop(_ pid: pid_t) -> Bool {
        guard let function else { return false }
        return function(seize, pid, nil, UnsafeMutableRawPointer(bitPattern: traceExit)) == 0
    }

    static func resume(_ pid: pid_t, signal: Int32) {
        _ = function?(cont, pid, nil, UnsafeMutableRawPointer(bitPattern: Int(signal)))
    }

    static func detach(_ pid: pid_t) {
        _ = function?(detachRequest, pid, nil, nil)
    }
}
