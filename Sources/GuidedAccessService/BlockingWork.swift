// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import Locking

/// One thread of its own for calls that block (fsync of `state.json`, a
/// GSettings write waiting for dconf-service), so they never hold a thread
/// of Swift's cooperative pool while the disk or the store is slow.
///
/// Jobs run one after another in the order given; writers are already
/// ordered by the model's writer lock, so one thread is enough.
final class BlockingWork: Sendable {
    /// Jobs not yet taken by the thread, which sleeps while there are none.
    private let jobs = Locked<[@Sendable () -> Void]>([])

    init() {
        let status = DetachedThread.start { [self] in self.serve() }
        precondition(status == 0, "cannot start the thread for blocking work: error \(status)")
    }

    /// Runs `body` on the thread and suspends the caller until it is done.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.withLockWakingWaiters { $0.append { continuation.resume(with: Result { try body() }) } }
        }
    }

    /// The thread's loop; it lives as long as the process (the daemon keeps one).
    private func serve() -> Never {
        while true {
            let batch = jobs.withLock(waitingUntil: { !$0.isEmpty }) { jobs in
                defer { jobs = [] }
                return jobs
            }
            for job in batch { job() }
        }
    }
}
