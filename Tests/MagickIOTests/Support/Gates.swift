import Foundation
@testable import MagickIO

// What tests use to hold work open and wait for it: its clock is only a guard against a hang
// (`hangGuard`), never a measure of how fast anything is. (Child processes are waited for with
// time limits of their own: `runChild`, `ToolHarness`.)

/// How long a test waits for something a gate guarantees before calling it a hang: long, because
/// under a full parallel run Swift's cooperative threads can be held for minutes by other tests'
/// blocking work (the tests' own time limits end a real hang first).
private let hangGuard: TimeInterval = 600

/// Polls `condition` until it holds; throws if it never does (a hang, not a slow machine).
func waitUntil(_ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(hangGuard)
    while !condition() {
        guard Date() < deadline else { throw MagickIOError(.io, "the condition never held") }
        Thread.sleep(forTimeInterval: 0.001)
    }
}

/// `waitUntil` for async tests: yields the thread between polls.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(hangGuard)
    while !condition() {
        guard Date() < deadline else { throw MagickIOError(.io, "the condition never held") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

extension DispatchSemaphore {
    /// Waits for a signal the test is owed; false if it never comes (a hang).
    func passes() -> Bool {
        wait(timeout: .now() + hangGuard) == .success
    }
}

/// A gate that async work waits at until the test opens it (also when its task is cancelled:
/// the test decides when it passes).
final class AsyncGate: Sendable {
    private let state = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if passes { continuation.resume() }
        }
    }
}
