// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import Locking
import Testing

/// `Locked` as the product uses it: a plain lock, a flag one thread waits
/// for (GLibThread's start and its jobs), a counting semaphore, and a job
/// queue a thread of its own drains (BlockingWork). The waiting sides run on
/// threads of their own, as in the product: a blocked cooperative-pool
/// thread could starve the thread that would wake it.
@Suite struct LockedTests {
    @Test func aChangeUnderTheLockIsSeenByTheNextHolder() {
        let counter = Locked(0)
        let threads = (0..<4).map { _ in
            Self.start { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } }
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(counter.withLock { $0 } == 40_000)
    }

    @Test func aWaiterWhoseConditionHoldsDoesNotWait() {
        let ready = Locked(true)
        let seen = ready.withLock(waitingUntil: { $0 }) { value -> Bool in
            defer { value = false }
            return value
        }
        #expect(seen)
        #expect(ready.withLock { $0 } == false, "the body ran with the value inout, under the lock")
    }

    @Test func aWaiterWakesOnceAnotherThreadSetsTheFlag() {
        let started = Locked(false)
        let handedOver = Locked<String?>(nil)
        let waiter = Self.start {
            let text = started.withLock(waitingUntil: { $0 }) { _ in "after the flag" }
            handedOver.withLock { $0 = text }
        }
        usleep(20_000)  // the waiter is most likely asleep by now; either way it must see the flag
        #expect(handedOver.withLock { $0 } == nil, "it waited for the flag")
        started.withLockWakingWaiters { $0 = true }
        pthread_join(waiter, nil)
        #expect(handedOver.withLock { $0 } == "after the flag")
    }

    @Test func oneChangeWakesEveryWaiterEachForItsOwnCondition() {
        let level = Locked(0)
        let reached = Locked<[Int]>([])
        let waiters = [1, 2, 3].map { goal in
            Self.start {
                level.withLock(waitingUntil: { $0 >= goal }) { _ in }
                reached.withLockWakingWaiters { $0.append(goal) }
            }
        }
        level.withLockWakingWaiters { $0 = 2 }
        let early = reached.withLock(waitingUntil: { $0.count >= 2 }) { $0.sorted() }
        #expect(early == [1, 2], "the one waiting for 3 still waits")
        level.withLockWakingWaiters { $0 = 3 }
        for waiter in waiters { pthread_join(waiter, nil) }
        #expect(reached.withLock { $0.sorted() } == [1, 2, 3])
    }

    @Test func aLockedIntIsACountingSemaphore() {
        let permits = Locked(0)
        let taken = Locked(0)
        let consumers = (0..<3).map { _ in
            Self.start {
                for _ in 0..<1_000 {
                    permits.withLock(waitingUntil: { $0 > 0 }) { $0 -= 1 }
                    taken.withLock { $0 += 1 }
                }
            }
        }
        for _ in 0..<3_000 { permits.withLockWakingWaiters { $0 += 1 } }
        for consumer in consumers { pthread_join(consumer, nil) }
        #expect(taken.withLock { $0 } == 3_000)
        #expect(permits.withLock { $0 } == 0)
    }

    @Test func aLockedArrayIsAJobQueueDrainedInOrder() {
        let queue = Locked<[Int]>([])
        let done = Locked<[Int]>([])
        let worker = Self.start {
            while done.withLock({ $0.count }) < 5_000 {
                let batch = queue.withLock(waitingUntil: { !$0.isEmpty }) { jobs in
                    defer { jobs = [] }
                    return jobs
                }
                done.withLock { $0 += batch }
            }
        }
        for job in 0..<5_000 { queue.withLockWakingWaiters { $0.append(job) } }
        pthread_join(worker, nil)
        #expect(done.withLock { $0 } == Array(0..<5_000))
    }

    @Test func anErrorThrownUnderTheLockReleasesIt() {
        struct Refused: Error {}
        let value = Locked(1)
        #expect(throws: Refused.self) { try value.withLockWakingWaiters { _ throws(Refused) in throw Refused() } }
        #expect(throws: Refused.self) { try value.withLock(waitingUntil: { $0 == 1 }) { _ throws(Refused) in throw Refused() } }
        #expect(value.withLock { $0 } == 1, "the lock is free again")
    }

    /// Runs `body` on a new thread; join it with `pthread_join`.
    private static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Box(body)).toOpaque())
        precondition(status == 0, "cannot start a thread: error \(status)")
        return thread
    }
}
