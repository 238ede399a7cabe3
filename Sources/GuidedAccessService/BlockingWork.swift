// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// One thread of its own for calls that block (fsync of `state.json`, a
/// GSettings write waiting for dconf-service), so they never hold a thread
/// of Swift's cooperative pool while the disk or the store is slow.
///
/// Jobs run one after another in the order given; writers are already
/// ordered by the model's writer lock, so one thread is enough. `jobs` is
/// guarded by `mutex` (hence `@unchecked Sendable`).
final class BlockingWork: @unchecked Sendable {
    private var jobs: [@Sendable () -> Void] = []
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            Unmanaged<BlockingWork>.fromOpaque(raw!).takeRetainedValue().serve()
            return nil
        }, box.toOpaque())
        precondition(status == 0, "cannot start the thread for blocking work: error \(status)")
        pthread_detach(thread)
    }

    /// Runs `body` on the thread and suspends the caller until it is done.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { continuation.resume(with: Result { try body() }) }
        }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The thread's loop; it lives as long as the process (the daemon keeps one).
    private func serve() -> Never {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(condition, mutex) }
            let batch = jobs
            jobs = []
            pthread_mutex_unlock(mutex)
            for job in batch { job() }
        }
    }
}
