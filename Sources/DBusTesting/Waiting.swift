// SPDX-License-Identifier: LGPL-2.1-or-later
/// Waiting helpers for tests that observe other processes: poll a condition,
/// or take the next element of a stream, each with a deadline.

/// Polls `condition` until it holds; false when `timeout` passes first.
public func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(25))
    }
    return try await condition()
}

/// The next element of `stream` within `timeout`, or nil.
public func next<T: Sendable>(_ stream: some AsyncSequence<T, Never> & Sendable, timeout: Duration = .seconds(10)) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next(isolation: nil)
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Takes elements of `stream` until `count` of them satisfy `matching`,
/// within one `timeout` for the whole wait (one timer, not one per
/// element, so a benchmark times the sender and not the waiting); returns
/// how many matched.
public func collect<T: Sendable>(_ count: Int, from stream: some AsyncSequence<T, Never> & Sendable, timeout: Duration = .seconds(10),
                                 matching: @escaping @Sendable (T) -> Bool) async -> Int {
    await withTaskGroup(of: Int.self) { group in
        group.addTask {
            var seen = 0
            for await element in stream where matching(element) {
                seen += 1
                if seen == count { break }
            }
            return seen
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return -1
        }
        let first = await group.next() ?? 0
        group.cancelAll()
        return first
    }
}
