// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A value that threads share behind a lock, and the one lock type of the
/// product's threads (tasks that must not block a thread use ``AsyncLock``,
/// which is built on it).
///
/// It does what `Synchronization.Mutex` does, with a pthread mutex: on
/// Linux `Mutex` waits with futex calls that ThreadSanitizer does not see,
/// so it reports every access made under a `Mutex` as a race, and a real
/// race would drown among them. `pthread_mutex_lock` it sees.
///
/// A thread can also wait until the value is what it needs
/// (``withLock(waitingUntil:_:)``) while another changes it and wakes it
/// (``withLockWakingWaiters(_:)``): a semaphore is a `Locked<Bool>` or
/// `Locked<Int>` waited on, a job queue a `Locked<[Job]>`. Waiting blocks
/// the thread, so it is for threads of their own, never for Swift tasks.
public final class Locked<Value>: @unchecked Sendable {
    // The mutex first: a zero-sized `Value` (a bare lock) then does not share
    // its address, which ThreadSanitizer's access checks would take for a race.
    // Both primitives are allocated, never stored properties: a pthread
    // object must not move, and Swift guarantees no stable address for `&property`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Made by the first wait and guarded by `mutex`: most values are never
    /// waited on, and a lock taken per message should cost one allocation.
    private var condition: UnsafeMutablePointer<pthread_cond_t>?
    private var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        if let condition {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while no other thread holds the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Blocks the calling thread until `isReady` holds for the value, then
    /// runs `body` with it, still under the lock (so nothing changes it in
    /// between). `isReady` is checked under the lock, first at once and then
    /// each time a ``withLockWakingWaiters(_:)`` wakes this thread.
    ///
    /// It blocks a thread: call it from a thread of its own, not from a task
    /// on Swift's cooperative pool (use ``AsyncLock`` there).
    public func withLock<Result, Failure: Error>(
        waitingUntil isReady: (Value) -> Bool, _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isReady(value) { pthread_cond_wait(waitCondition(), mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value under the lock, then wakes every thread
    /// waiting in ``withLock(waitingUntil:_:)`` so each checks its condition
    /// again (all of them: each may wait for something else).
    public func withLockWakingWaiters<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            if let condition { pthread_cond_broadcast(condition) }
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// The condition waiters sleep on, made on first use; call with `mutex` held.
    private func waitCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        if let condition { return condition }
        let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_cond_init(made, nil)
        condition = made
        return made
    }
}
