// SPDX-License-Identifier: LGPL-2.1-or-later
/// A lock for async code: a task that finds it taken suspends until its
/// turn (first come, first served) instead of blocking its thread.
///
/// Why not ``Locked``: a pthread mutex blocks the waiting thread, and the
/// waiters here are tasks on Swift's cooperative pool (two threads on a
/// two-core machine): two writers waiting behind a slow `fsync` would stop
/// every other task of the process.
public final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Runs `body` while no other task holds the lock; suspends meanwhile.
    public func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mine = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if mine { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, if any, so it never looks free while one waits.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
