// SPDX-License-Identifier: LGPL-2.1-or-later
import Locking

/// Hands every value to all streams currently listening; each stream ends
/// its registration when its consumer stops iterating.
final class Broadcaster<Value: Sendable>: Sendable {
    private struct Listeners {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<Value>.Continuation] = [:]
    }
    private let listeners = Locked(Listeners())

    /// A new stream that receives every value yielded from now on.
    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .unbounded)
        let id = listeners.withLock { listeners in
            listeners.next += 1
            listeners.continuations[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ value: Value) {
        for continuation in listeners.withLock({ Array($0.continuations.values) }) { continuation.yield(value) }
    }

    func finish() {
        for continuation in listeners.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
