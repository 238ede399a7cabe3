// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessCore

/// Asks polkit, over the system bus, whether a caller may perform an action.
///
/// Anything but a clear "yes" is a no: polkit absent, an error, or no answer
/// within `timeout`. Each check is its own call, so a slow answer for one
/// caller holds up no other; at most ``maxChecksRunning`` run at once and
/// ``maxChecksWaiting`` more wait, all within the same `timeout`.
public final class PolkitAuthority: Sendable {
    /// Checks in flight at once, well below the system bus's default limit
    /// of 128 pending replies per connection.
    public static let maxChecksRunning = 64
    /// Checks that may wait for a turn; past this, callers are told the
    /// authorization service is busy.
    public static let maxChecksWaiting = 256

    private let address: BusAddress
    private let timeout: Duration
    private let connection: LazyConnection
    private let gate = CheckGate(maxRunning: maxChecksRunning, maxWaiting: maxChecksWaiting)

    /// - Parameters:
    ///   - address: the system bus, or a private one in tests.
    ///   - timeout: how long to wait for polkit (interactive checks get 5 minutes, as a person is typing).
    public init(address: BusAddress = .system, timeout: Duration = .seconds(25)) {
        self.address = address
        self.timeout = timeout
        connection = LazyConnection(address)
    }

    /// The outcome of a check.
    public enum Decision: Sendable, Equatable {
        case authorized
        /// polkit would ask for a password, but the caller did not allow interaction.
        case challenge
        case denied(String)
        /// Too many checks are already waiting; nothing was asked.
        case busy(String)
    }

    /// Checks `action` for `caller`. `interactive` lets polkit show a prompt.
    public func check(_ action: AdminAction, for caller: CallerIdentity, interactive: Bool) async -> Decision {
        let limit = interactive ? Duration.seconds(300) : timeout
        let deadline = ContinuousClock.now + limit
        switch await gate.enter(until: deadline) {
        case .granted: break
        case .busy:
            return .busy("the authorization service is busy (\(Self.maxChecksRunning) checks running, "
                         + "\(Self.maxChecksWaiting) waiting); try again shortly")
        case .expired:
            return .denied("polkit did not answer within \(limit) (it is busy or stopped); without an answer every admin action is refused")
        }
        let decision = await ask(action, for: caller, interactive: interactive, until: deadline)
        await gate.leave()
        return decision
    }

    /// One check, retried while the bus refuses it for too many pending
    /// replies: after polkitd was stopped, the bus still counts the checks
    /// this service gave up on, until polkitd answers them.
    private func ask(_ action: AdminAction, for caller: CallerIdentity, interactive: Bool,
                     until deadline: ContinuousClock.Instant) async -> Decision {
        while true {
            do {
                return try await ask(action, for: caller, interactive: interactive, timeout: deadline - ContinuousClock.now)
            } catch let error as DBusError where error.name == .limitsExceeded
                        && ContinuousClock.now + Self.retryPause < deadline {
                try? await Task.sleep(for: Self.retryPause)
            } catch {
                connection.reset(ifDisconnected: error)
                return .denied("polkit could not be asked (\(error)); without polkit every admin action is refused")
            }
        }
    }

    private static let retryPause = Duration.milliseconds(50)

    private func ask(_ action: AdminAction, for caller: CallerIdentity, interactive: Bool, timeout: Duration) async throws -> Decision {
        let subject = DBusValue.structure([
            .string("unix-process"),
            .dictionary(key: "s", value: "v", [
                .init(key: .string("pid"), value: .variant(.uint32(caller.processID))),
                .init(key: .string("start-time"), value: .variant(.uint64(caller.startTime))),
                .init(key: .string("uid"), value: .variant(.int32(Int32(bitPattern: caller.userID)))),
            ]),
        ])
        let bus = try connection.get()
        let reply = try await bus.call(
            "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
            "CheckAuthorization",
            [subject, .string(action.rawValue), .dictionary(key: "s", value: "s", []), .uint32(interactive ? 1 : 0), .string("")],
            allowInteractiveAuthorization: interactive, timeout: timeout)
        guard case .structure(let fields)? = reply.first, fields.count == 3,
              case .bool(let authorized) = fields[0], case .bool(let challenge) = fields[1] else {
            return .denied("polkit gave an answer this service does not understand")
        }
        if authorized { return .authorized }
        return challenge ? .challenge : .denied("polkit refused \(action.rawValue)")
    }
}

/// Connects on first use and again after the bus went away, so the daemon
/// starts without a system bus and recovers when one appears.
final class LazyConnection: Sendable {
    private let address: BusAddress
    private let current: Locked<Connection?> = Locked(nil)

    init(_ address: BusAddress) { self.address = address }

    func get() throws -> Connection {
        try current.withLock { connection in
            if let connection { return connection }
            let fresh = try Connection(address)
            connection = fresh
            return fresh
        }
    }

    func reset(ifDisconnected error: any Error) {
        guard let error = error as? DBusError, error.name == .disconnected else { return }
        current.withLock { $0 = nil }
    }
}

import Locking
