// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Locking

/// Keeps the reply of a method marshalled, for a method whose answer is the
/// same for every caller until something changes (a list of everything,
/// say): each call then gets a copy of the kept body instead of the handler
/// running and the values being marshalled again. Whoever changes what the
/// reply says calls ``invalidate()``; the next call builds it again.
///
/// Attach it with `Member.method(_:cachingReplyIn:_:)`. Admission (the call
/// policy) still applies to every call; only the handler is skipped.
public final class ReplyCache: Sendable {
    private struct Kept {
        /// Bumped by each invalidation: a reply built from what was read
        /// before it is never kept.
        var generation: UInt64 = 0
        var reply: Message?
    }

    private let kept = Locked(Kept())

    public init() {}

    /// Drops the kept reply.
    public func invalidate() {
        kept.withLock { kept in
            kept.generation &+= 1
            kept.reply = nil
        }
    }

    /// The generation a handler's reply is built from: read it before the handler reads.
    var generation: UInt64 { kept.withLock(\.generation) }

    /// A copy of the kept reply addressed to `call`, or nil when there is none.
    func reply(to call: Message) -> Message? {
        guard let template = kept.withLock({ $0.reply }) else { return nil }
        return template.copy(replyingTo: call)
    }

    /// Keeps `reply` unless something changed since `generation` was read.
    func keep(_ reply: Message, builtAt generation: UInt64) {
        kept.withLock { kept in
            if kept.generation == generation { kept.reply = reply }
        }
    }
}
