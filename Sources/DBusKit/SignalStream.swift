// SPDX-License-Identifier: LGPL-2.1-or-later
import Locking

/// The signals one subscription receives, in the order they arrived.
///
/// Each message crosses from the loop thread to the reading task through an
/// `AsyncStream` and then a hand-off lock, as replies do (see `Connection`).
/// The stream alone orders the two threads, but when the reader is resumed
/// before it has finished suspending, the Swift runtime goes on without
/// telling ThreadSanitizer, which then reports the message's fields (written
/// on the loop thread) as a race. The lock, one uncontended take per message
/// on each side, makes the order visible, so the sanitizer's reports stay
/// about real races. It guards a count of the messages handed over, not
/// nothing: the sanitizer takes a zero-sized value's accesses for the
/// object's header and reports those instead.
public struct SignalStream: AsyncSequence, Sendable {
    public typealias Element = Message

    private let messages: AsyncStream<Message>
    private let handOff: Locked<UInt64>

    /// The loop thread's end of a subscription.
    struct Sender: Sendable {
        let continuation: AsyncStream<Message>.Continuation
        let handOff: Locked<UInt64>

        func yield(_ message: Message) {
            handOff.withLock { $0 &+= 1 }
            continuation.yield(message)
        }

        func finish() { continuation.finish() }
    }

    /// A stream and its sender; nothing is dropped however far the reader lags.
    static func make() -> (SignalStream, Sender) {
        let (messages, continuation) = AsyncStream<Message>.makeStream(bufferingPolicy: .unbounded)
        let handOff = Locked<UInt64>(0)
        return (SignalStream(messages: messages, handOff: handOff), Sender(continuation: continuation, handOff: handOff))
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(messages: messages.makeAsyncIterator(), handOff: handOff)
    }

    /// Reads the stream's messages in order; nil once the subscription ended.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var messages: AsyncStream<Message>.AsyncIterator
        let handOff: Locked<UInt64>

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Message? {
            let message = await messages.next(isolation: actor)
            handOff.withLock { _ in }
            return message
        }

        public mutating func next() async -> Message? {
            await next(isolation: nil)
        }
    }
}
