// SPDX-License-Identifier: LGPL-2.1-or-later
import Locking

/// Who may call a connection's objects, and how much one sender may ask of
/// it at once. `Introspect` (and `Peer`, which libdbus answers itself) stay
/// open to everyone.
public struct CallPolicy: Sendable {
    /// Decides from the caller's bus credentials: `nil` admits, an error
    /// refuses every call of that sender (Properties and ObjectManager
    /// included) with it. Asked once per unique name.
    public var admit: (@Sendable (Credentials) -> DBusError?)?
    /// Most method calls one sender may have running at once; past it a call
    /// is refused at once with `busy`, without queueing anything.
    public var maxInFlightPerSender: Int?
    /// The refusal for a sender over `maxInFlightPerSender`.
    public var busy: DBusError
    /// The largest body a method call may have, in bytes on the wire; a
    /// larger call is refused with `LimitsExceeded` before any of it is
    /// decoded (the bus itself lets messages of up to 128 MB through).
    public var maxMessageBytes: Int?
    /// Told of each call of at least ``largeMessageBytes`` (served or
    /// refused), on the loop thread: its buffers are freed soon, and a
    /// burst of them is when to give freed memory back.
    public var largeMessage: (@Sendable () -> Void)?
    /// What counts as a large call for `largeMessage`.
    public static let largeMessageBytes = 64 * 1024

    public init(
        admit: (@Sendable (Credentials) -> DBusError?)? = nil, maxInFlightPerSender: Int? = nil,
        busy: DBusError = DBusError.limitsExceeded("too many calls in flight from this connection; wait for replies"),
        maxMessageBytes: Int? = nil, largeMessage: (@Sendable () -> Void)? = nil
    ) {
        self.admit = admit
        self.maxInFlightPerSender = maxInFlightPerSender
        self.busy = busy
        self.maxMessageBytes = maxMessageBytes
        self.largeMessage = largeMessage
    }

    /// The refusal of `message` for its size, nil when it is within
    /// `maxMessageBytes`; tells `largeMessage` of a large one.
    func sizeRefusal(of message: Message) -> DBusError? {
        guard maxMessageBytes != nil || largeMessage != nil else { return nil }
        let limit = maxMessageBytes ?? Self.largeMessageBytes
        let size = message.bodyByteCount(upTo: limit)
        if size >= Self.largeMessageBytes { largeMessage?() }
        guard let maxMessageBytes, size > maxMessageBytes else { return nil }
        return .limitsExceeded("a call of more than \(maxMessageBytes) bytes (this one has at least \(size)) is more than "
                               + "any method of this service takes; send less")
    }
}

/// The policy's state on one connection: which senders were admitted, the
/// calls that wait for a sender's credentials, and each sender's calls in
/// flight. Admission lives on the loop thread (hence `@unchecked Sendable`);
/// in-flight counts are also released from the tasks that run handlers,
/// hence the lock around them.
final class CallAdmission: @unchecked Sendable {
    var policy = CallPolicy()
    /// Loop thread: the decision per unique name (unique names are never
    /// reused, so an entry never goes stale; the map is cleared past a bound).
    private var decisions: [BusName: DBusError?] = [:]
    /// Loop thread: calls waiting for their sender's credentials, in arrival order.
    private var waiting: [BusName: [MethodCall]] = [:]
    private let inFlight = Locked<[BusName: Int]>([:])
    private static let rememberedSenders = 8_192

    /// Loop thread. Routes the call now, or once its sender's credentials
    /// are in; refuses it when the sender is not admitted.
    func admit(_ call: MethodCall) {
        let objects = call.connection.objects
        if let refusal = policy.sizeRefusal(of: call.message) { return objects.fail(call, refusal) }
        guard let admit = policy.admit, !Self.isOpen(call.message) else { return objects.route(call) }
        let sender = call.sender
        if let decision = decisions[sender] {
            return decision.map { objects.fail(call, $0) } ?? objects.route(call)
        }
        guard waiting[sender] == nil else { return waiting[sender]!.append(call) }
        waiting[sender] = [call]
        let connection = call.connection
        Task {
            let decision: DBusError?
            do {
                decision = admit(try await connection.credentials(of: sender))
            } catch {
                decision = DBusError.accessDenied("cannot tell who \(sender) is (\(error)); refusing its calls")
            }
            connection.loop.execute { self.decided(sender, decision, objects: connection.objects) }
        }
    }

    private func decided(_ sender: BusName, _ decision: DBusError?, objects: ObjectTree) {
        if decisions.count >= Self.rememberedSenders { decisions.removeAll() }
        decisions[sender] = .some(decision)
        for call in waiting.removeValue(forKey: sender) ?? [] {
            if let decision { objects.fail(call, decision) } else { objects.route(call) }
        }
    }

    /// Introspection is open to all: it describes the interface, not the user's data.
    private static func isOpen(_ message: Message) -> Bool {
        message.interface == .introspectable
    }

    /// Counts a handler starting for `sender`; false when the sender is at its cap.
    func start(_ sender: BusName) -> Bool {
        guard let cap = policy.maxInFlightPerSender else { return true }
        return inFlight.withLock { counts in
            let running = counts[sender] ?? 0
            guard running < cap else { return false }
            counts[sender] = running + 1
            return true
        }
    }

    /// Counts a handler of `sender` as finished.
    func finish(_ sender: BusName) {
        guard policy.maxInFlightPerSender != nil else { return }
        inFlight.withLock { counts in
            let running = (counts[sender] ?? 1) - 1
            counts[sender] = running > 0 ? running : nil
        }
    }
}
