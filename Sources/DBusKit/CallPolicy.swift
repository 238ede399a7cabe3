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

    public init(
        admit: (@Sendable (Credentials) -> DBusError?)? = nil, maxInFlightPerSender: Int? = nil,
        busy: DBusError = DBusError.limitsExceeded("too many calls in flight from this connection; wait for replies")
    ) {
        self.admit = admit
        self.maxInFlightPerSender = maxInFlightPerSender
        self.busy = busy
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
