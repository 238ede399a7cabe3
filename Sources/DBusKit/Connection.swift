// SPDX-License-Identifier: LGPL-2.1-or-later
import CDBus
import Glibc
import Locking

/// Which bus to connect to.
public enum BusAddress: Sendable {
    case session
    case system
    /// An explicit address such as `unix:path=/tmp/bus` (private buses, tests).
    case address(String)
}

/// A connection to a message bus, owned by its own event loop thread.
///
/// Every method is safe to call from any task. Exported objects, signal
/// subscriptions and pending calls live on the loop thread.
public final class Connection: @unchecked Sendable {
    let raw: OpaquePointer
    let loop: EventLoop
    /// The unique name the bus gave this connection (`:1.42`).
    public let uniqueName: BusName

    // Loop-thread state.
    /// Calls awaiting a reply. The reply crosses from the loop thread to the
    /// waiting task in `reply`, under its lock: the continuation orders the
    /// two as well, but ThreadSanitizer on Linux does not see that and would
    /// report every reply as a race, hiding real ones.
    private var pendingReplies: [UInt32: (continuation: CheckedContinuation<Void, any Error>, reply: Locked<Message?>, timer: UInt64)] = [:]
    /// Signal subscriptions; a message crosses to its reader as a reply does (see `SignalStream`).
    private var subscriptions: [UInt64: (rule: MatchRule, sender: SignalStream.Sender)] = [:]
    private var nextSubscriptionID: UInt64 = 0
    /// Unique owners of the well-known names that subscriptions filter on
    /// (signals carry only the unique name); an entry with nil means "no owner".
    private var senderOwners: [BusName: BusName?] = [:]
    private var trackedSenders: Set<BusName> = []
    let objects = ObjectTree()
    private var isClosed = false

    /// Connects and registers with the bus (`Hello`), then starts the loop.
    public init(_ bus: BusAddress) throws {
        dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let connection: OpaquePointer?
        switch bus {
        case .session: connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .system: connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .address(let address):
            guard !address.utf8.contains(0) else { throw DBusError.invalidArgs("bus address contains a NUL byte") }
            connection = dbus_connection_open_private(address, &error)
            if let connection, dbus_bus_register(connection, &error) == 0 {
                dbus_connection_close(connection)
                dbus_connection_unref(connection)
                throw Connection.error(from: &error, fallback: "cannot register with the bus at \(address)")
            }
        }
        guard let connection else { throw Connection.error(from: &error, fallback: "cannot connect to the \(bus) bus") }
        raw = connection
        dbus_connection_set_exit_on_disconnect(connection, 0)
        uniqueName = BusName(unchecked: String(cString: dbus_bus_get_unique_name(connection)))
        loop = EventLoop(connection: connection)
        dbus_connection_add_filter(connection, Connection.filter, Unmanaged.passUnretained(self).toOpaque(), nil)
        loop.start()
    }

    /// The libdbus filter every incoming message passes through; `data` is the connection.
    private static let filter: DBusHandleMessageFunction = { _, message, data in
        let connection = Unmanaged<Connection>.fromOpaque(data!).takeUnretainedValue()
        return connection.handle(Message(adopting: dbus_message_ref(message!)))
    }

    private static func error(from error: inout CDBus.DBusError, fallback: String) -> DBusError {
        guard dbus_error_is_set(&error) != 0, let name = error.name else { return .failed(fallback) }
        let message = error.message.map { String(cString: $0) } ?? fallback
        return DBusError((try? ErrorName(validating: String(cString: name))) ?? .failed, "\(fallback): \(message)")
    }

    /// Closes the connection: pending calls fail, signal streams finish.
    /// Closing twice is harmless.
    public func close() {
        loop.execute { [self] in
            guard !isClosed else { return }
            dbus_connection_close(raw)
            failEverything()
        }
        loop.stop()
    }

    /// A connection nobody closed is closed here: libdbus aborts when the
    /// last reference to an open private connection goes away.
    deinit {
        // Only plain addresses are captured: `self` must not outlive deinit.
        let raw = UInt(bitPattern: raw)
        let context = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        loop.execute {
            let connection = OpaquePointer(bitPattern: raw)
            dbus_connection_remove_filter(connection, Connection.filter, UnsafeMutableRawPointer(bitPattern: context))
            dbus_connection_close(connection)
        }
        loop.stop()
        dbus_connection_unref(self.raw)
    }

    // MARK: Sending

    /// Sends a message without waiting for a reply.
    public func send(_ message: Message) {
        loop.execute { [self] in
            guard !isClosed else { return }
            dbus_connection_send(raw, message.raw, nil)
        }
    }

    /// Sends a method call and waits for its reply. An error reply is thrown
    /// as `DBusError` with the remote name and message.
    public func call(_ message: Message, timeout: Duration = .seconds(25)) async throws -> Message {
        let slot = Locked<Message?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            loop.execute { [self] in
                guard !isClosed else { return continuation.resume(throwing: DBusError.disconnected("the connection is closed")) }
                var serial: UInt32 = 0
                guard dbus_connection_send(raw, message.raw, &serial) != 0 else {
                    return continuation.resume(throwing: DBusError.failed("out of memory sending a message"))
                }
                let milliseconds = UInt64(max(0, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
                let timer = loop.addTimer(milliseconds: milliseconds) { [self] in
                    guard let pending = pendingReplies.removeValue(forKey: serial) else { return }
                    pending.continuation.resume(throwing: DBusError.noReply(
                        "no reply to \(message.interface?.rawValue ?? "").\(message.member?.rawValue ?? "") within \(timeout)"))
                }
                pendingReplies[serial] = (continuation, slot, timer)
            }
        }
        let reply = slot.withLock { $0! }
        try reply.throwIfError()
        return reply
    }

    /// Calls a method and returns its reply body.
    public func call(_ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
                     _ arguments: [DBusValue] = [], allowInteractiveAuthorization: Bool = false,
                     timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        let message = try Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                             arguments: arguments, allowInteractiveAuthorization: allowInteractiveAuthorization)
        return try await call(message, timeout: timeout).arguments
    }

    /// Emits a signal from `path`.
    public func emit(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue] = []) throws {
        send(try Message.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    // MARK: Incoming

    /// Runs on the loop thread for every incoming message.
    private func handle(_ message: Message) -> DBusHandlerResult {
        switch message.kind {
        case .methodReturn, .error:
            guard let pending = pendingReplies.removeValue(forKey: message.replySerial) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            loop.cancelTimer(pending.timer)
            pending.reply.withLock { $0 = message }
            pending.continuation.resume()
            return DBUS_HANDLER_RESULT_HANDLED
        case .signal:
            if message.interface?.rawValue == "org.freedesktop.DBus.Local", message.member?.rawValue == "Disconnected" {
                failEverything()
                return DBUS_HANDLER_RESULT_HANDLED
            }
            noteOwnerChange(message)
            for subscription in subscriptions.values where subscription.rule.matches(message, owners: senderOwners) {
                subscription.sender.yield(message)
            }
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            objects.dispatch(MethodCall(message: message, connection: self))
            return DBUS_HANDLER_RESULT_HANDLED
        }
    }

    private func failEverything() {
        isClosed = true
        for (_, pending) in pendingReplies {
            loop.cancelTimer(pending.timer)
            pending.continuation.resume(throwing: DBusError.disconnected("the bus connection was closed"))
        }
        pendingReplies.removeAll()
        for (_, subscription) in subscriptions { subscription.sender.finish() }
        subscriptions.removeAll()
    }

    /// Sends `reply` unless the caller asked for none.
    func reply(to call: MethodCall, _ build: () throws -> Message) {
        guard !call.message.noReplyExpected else { return }
        do {
            send(try build())
        } catch {
            send(call.message.makeErrorReply(DBusError.from(error)))
        }
    }

    // MARK: Signals

    /// Subscribes to signals matching `rule`. The match is in place on the
    /// bus when this returns; the stream ends when the connection closes.
    /// Stopping iteration removes the match.
    public func signals(_ rule: MatchRule) async throws -> SignalStream {
        if let sender = rule.sender, !sender.isUnique, sender != .bus { try await trackOwner(of: sender) }
        // Listen locally first, so nothing the bus sends once the match is in place slips by.
        let (stream, sender) = SignalStream.make()
        let id: UInt64 = await onLoop {
            self.nextSubscriptionID += 1
            self.subscriptions[self.nextSubscriptionID] = (rule, sender)
            return self.nextSubscriptionID
        }
        do {
            _ = try await call(.bus, "/org/freedesktop/DBus", .bus, "AddMatch", [.string(rule.text)])
        } catch {
            _ = await onLoop { self.subscriptions.removeValue(forKey: id) }
            throw error
        }
        sender.continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            loop.execute { [self] in
                guard subscriptions.removeValue(forKey: id) != nil, !isClosed else { return }
                if let message = try? Message.methodCall(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                                                         member: "RemoveMatch", arguments: [.string(rule.text)]) {
                    dbus_message_set_no_reply(message.raw, 1)
                    dbus_connection_send(raw, message.raw, nil)
                }
            }
        }
        return stream
    }

    /// Keeps `senderOwners[name]` current, so a subscription filtered on a
    /// well-known sender never takes a signal some other peer forged.
    private func trackOwner(of name: BusName) async throws {
        let isNew = await onLoop { self.trackedSenders.insert(name).inserted }
        guard isNew else { return }
        let rule = MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged", arg0: name.rawValue)
        _ = try await call(.bus, "/org/freedesktop/DBus", .bus, "AddMatch", [.string(rule.text)])
        let current = try await owner(of: name)
        // A NameOwnerChanged seen meanwhile is at least as new as this answer.
        await onLoop { if self.senderOwners.index(forKey: name) == nil { self.senderOwners[name] = .some(current) } }
    }

    /// Loop thread: records an owner change of a tracked name.
    private func noteOwnerChange(_ message: Message) {
        guard message.sender == .bus, message.member?.rawValue == "NameOwnerChanged", message.arguments.count == 3,
              case .string(let name) = message.arguments[0], case .string(let newOwner) = message.arguments[2] else { return }
        let key = BusName(unchecked: name)
        guard trackedSenders.contains(key) else { return }
        senderOwners[key] = .some(newOwner.isEmpty ? nil : BusName(unchecked: newOwner))
    }

    /// Runs `body` on the loop thread and returns its result.
    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { done in loop.execute { done.resume(returning: body()) } }
    }

    /// Follows who owns `name`: yields the current owner (nil when none)
    /// first, then every change. A peer that left before the watch was set
    /// is reported as nil, never missed.
    public func watchOwner(of name: BusName) async throws -> AsyncStream<BusName?> {
        let changes = try await signals(MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged", arg0: name.rawValue))
        let current = try await owner(of: name)
        return AsyncStream { continuation in
            continuation.yield(current)
            let task = Task {
                for await signal in changes {
                    guard signal.arguments.count == 3, case .string(let newOwner) = signal.arguments[2] else { continue }
                    continuation.yield(newOwner.isEmpty ? nil : BusName(unchecked: newOwner))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The unique name owning `name`, or nil when nobody owns it.
    public func owner(of name: BusName) async throws -> BusName? {
        do {
            let reply = try await call(.bus, "/org/freedesktop/DBus", .bus, "GetNameOwner", [.string(name.rawValue)])
            guard case .string(let owner)? = reply.first else { return nil }
            return BusName(unchecked: owner)
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// The process and user of a peer, from `GetConnectionCredentials`.
    public func credentials(of peer: BusName) async throws -> Credentials {
        let reply = try await call(.bus, "/org/freedesktop/DBus", .bus, "GetConnectionCredentials", [.string(peer.rawValue)])
        guard let first = reply.first, let fields = try? [String: Variant](dbusValue: first),
              let pid = fields["ProcessID"]?.get(UInt32.self), let uid = fields["UnixUserID"]?.get(UInt32.self) else {
            throw DBusError.failed("the bus did not report process and user of \(peer)")
        }
        return Credentials(processID: pid, userID: uid)
    }

    // MARK: Names

    /// Sets who may call the exported objects and how many calls one sender
    /// may have running. Set it before exporting objects.
    public func setCallPolicy(_ policy: CallPolicy) {
        loop.execute { self.objects.admission.policy = policy }
    }

    /// Requests a well-known name without queueing. Export objects first so
    /// no call that arrives right after the name appears is lost.
    /// Throws `NameUnavailableError` when someone else owns it.
    public func requestName(_ name: BusName) async throws {
        let reply = try await call(.bus, "/org/freedesktop/DBus", .bus, "RequestName",
                                   [.string(name.rawValue), .uint32(CDBUS_NAME_FLAG_DO_NOT_QUEUE)])
        guard case .uint32(let code)? = reply.first else { throw DBusError.failed("RequestName returned no result") }
        switch Int32(code) {
        case CDBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER, CDBUS_REQUEST_NAME_REPLY_ALREADY_OWNER:
            return
        default:
            let holder = try? await owner(of: name)
            throw NameUnavailableError(name: name, owner: holder)
        }
    }

    /// Returns when this connection no longer owns `name`, saying why: the
    /// bus sent `NameLost` for it, or the connection closed. A `NameLost`
    /// that another peer sends is not the bus's and changes nothing.
    public func waitUntilLost(_ name: BusName) async -> String {
        let rule = MatchRule(sender: .bus, interface: .bus, member: "NameLost", arg0: name.rawValue)
        guard let notices = try? await signals(rule) else { return "the bus connection closed" }
        for await _ in notices { return "the bus took \(name) away (NameLost)" }
        return "the bus connection closed"
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: BusName) async throws {
        _ = try await call(.bus, "/org/freedesktop/DBus", .bus, "ReleaseName", [.string(name.rawValue)])
    }

    // MARK: Exported objects

    /// Exports `interfaces` at `path` (replacing what was there). Under an
    /// object manager, `InterfacesAdded` is emitted.
    public func export(_ path: ObjectPath, _ interfaces: [Interface]) {
        loop.execute { [self] in objects.export(path, interfaces, on: self) }
    }

    /// Removes the object at `path`. Under an object manager,
    /// `InterfacesRemoved` is emitted.
    public func unexport(_ path: ObjectPath) {
        loop.execute { [self] in objects.unexport(path, on: self) }
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path` for every object below it.
    public func addObjectManager(at path: ObjectPath) {
        loop.execute { [self] in objects.managerPaths.insert(path) }
    }

    /// Re-reads the named properties through their getters and emits one
    /// `PropertiesChanged` for those whose value really changed.
    public func propertiesChanged(_ path: ObjectPath, _ interface: InterfaceName, _ names: [MemberName]) {
        loop.execute { [self] in objects.emitChanges(path, interface, names, on: self) }
    }

    /// Runs `work` after the messages queued so far were handed to libdbus;
    /// handy for tests and shutdown.
    public func flush() async {
        await withCheckedContinuation { done in
            loop.execute { [self] in
                dbus_connection_flush(raw)
                done.resume()
            }
        }
    }
}

/// The bus name is owned by another connection.
public struct NameUnavailableError: Error, CustomStringConvertible, Sendable {
    public let name: BusName
    public let owner: BusName?
    public var description: String {
        "the bus name \(name) is already owned" + (owner.map { " by \($0)" } ?? "") + "; is another instance running?"
    }
}

/// A signal match rule, sent to the bus and applied locally.
public struct MatchRule: Sendable, Hashable {
    public var sender: BusName?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    public var arg0: String?

    public init(sender: BusName? = nil, path: ObjectPath? = nil, interface: InterfaceName? = nil,
                member: MemberName? = nil, arg0: String? = nil) {
        self.sender = sender; self.path = path; self.interface = interface; self.member = member; self.arg0 = arg0
    }

    /// The rule in the bus's text syntax.
    public var text: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value.quotedForMatchRule)'")
        }
        add("sender", sender?.rawValue)
        add("path", path?.rawValue)
        add("interface", interface?.rawValue)
        add("member", member?.rawValue)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// Local check. Signals carry their sender's unique name, so a
    /// well-known sender is compared through `owners` (the bus itself signs
    /// as `org.freedesktop.DBus`).
    func matches(_ message: Message, owners: [BusName: BusName?]) -> Bool {
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let sender {
            let expected = sender.isUnique || sender == .bus ? sender : owners[sender] ?? nil
            guard let expected, message.sender == expected else { return false }
        }
        if let arg0 {
            guard case .string(let first)? = message.arguments.first, first == arg0 else { return false }
        }
        return true
    }
}

extension String {
    /// This value inside a match rule's quotes: each `'` ends the quote, is
    /// escaped and opens it again. Character by character, as a string
    /// separator would bring in _StringProcessing's searchers at start.
    fileprivate var quotedForMatchRule: String {
        var quoted = ""
        for character in self { quoted += character == "'" ? "'\\''" : String(character) }
        return quoted
    }
}
