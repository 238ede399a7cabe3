// SPDX-License-Identifier: LGPL-2.1-or-later
import Locking

/// Waits on this thread for an async bus call: for what runs on the thread
/// for blocking work (a settle's `apply` and `restore`), never for a task.
enum BlockingBus {
    static func wait<T: Sendable>(_ call: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await call()) } catch { result = .failure(error) }
            outcome.withLockWakingWaiters { $0 = result }
        }
        return try outcome.withLock(waitingUntil: { $0 != nil }) { $0! }.get()
    }
}
