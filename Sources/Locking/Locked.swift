// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// A value that threads share behind a lock.
///
/// It does what `Synchronization.Mutex` does, with a pthread mutex: on
/// Linux `Mutex` waits with futex calls that ThreadSanitizer does not see,
/// so it reports every access made under a `Mutex` as a race, and a real
/// race would drown among them. `pthread_mutex_lock` it sees.
public final class Locked<Value>: @unchecked Sendable {
    // The mutex first: a zero-sized `Value` (a bare lock) then does not share
    // its address, which ThreadSanitizer's access checks would take for a race.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while no other thread holds the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
