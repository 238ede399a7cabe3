// SPDX-License-Identifier: LGPL-2.1-or-later
import Locking

/// How a property announces changes, as in the standard
/// `org.freedesktop.DBus.Property.EmitsChangedSignal` annotation.
public enum PropertyChangeBehavior: String, Sendable {
    /// `PropertiesChanged` carries the new value.
    case emits = "true"
    /// `PropertiesChanged` names the property without its value.
    case invalidates
    /// The value never changes while the object exists.
    case const
    /// No signal; clients must re-read (e.g. values computed on read).
    case none = "false"
}

/// Who may read or write a property.
public enum PropertyAccess: String, Sendable {
    case read, write, readwrite
}

/// The context a method handler receives: the message and who sent it.
public struct MethodCall: Sendable {
    /// The incoming message.
    public let message: Message
    /// The connection it arrived on, for replies, signals and lookups.
    public let connection: Connection
    /// Present for method handlers; property access needs none.
    let replyHooks: ReplyHooks?
    /// The method takes `i` for its `u` arguments (``Member/takingInt32AsUInt32()``).
    let takesInt32AsUInt32: Bool

    init(message: Message, connection: Connection, replyHooks: ReplyHooks? = nil, takesInt32AsUInt32: Bool = false) {
        self.message = message
        self.connection = connection
        self.replyHooks = replyHooks
        self.takesInt32AsUInt32 = takesInt32AsUInt32
    }

    /// The call's arguments as the method's Swift types.
    func arguments<each T: DBusType>(_ types: repeat (each T).Type) throws -> (repeat each T) {
        try message.decode(repeat (each T).self, int32AsUInt32: takesInt32AsUInt32)
    }

    /// Runs `action` right after the successful reply is queued, so change
    /// signals reach clients after the answer to the call that caused them.
    public func afterReply(_ action: @escaping @Sendable () -> Void) {
        guard let replyHooks else { return action() }
        replyHooks.actions.withLock { $0.append(action) }
    }

    /// The caller's unique bus name.
    public var sender: BusName { message.sender ?? ":local" }
    /// The caller said it can wait for interactive authorization.
    public var allowsInteractiveAuthorization: Bool { message.allowsInteractiveAuthorization }
    /// The object path the call was sent to.
    public var path: ObjectPath { message.path ?? .root }

    /// The caller's process and user, from the bus (never from arguments).
    public func callerCredentials() async throws -> Credentials {
        try await connection.credentials(of: sender)
    }
}

/// Work a handler defers until its reply is sent.
final class ReplyHooks: Sendable {
    let actions = Locked<[@Sendable () -> Void]>([])
    func run() {
        for action in actions.withLock({ $0 }) { action() }
    }
}

/// Process and user of a bus peer, as the bus reports them.
public struct Credentials: Sendable, Hashable {
    public var processID: UInt32
    public var userID: UInt32
    public init(processID: UInt32, userID: UInt32) { self.processID = processID; self.userID = userID }
}

/// A named, typed argument in a declaration.
public struct Argument: Sendable, Hashable {
    public let name: String
    public let signature: Signature
    /// The C++ type of its values in Qt (``DBusType/qtTypeName``).
    public let qtTypeName: String

    init(name: String, type: any DBusType.Type) {
        self.name = name
        signature = type.dbusSignature
        qtTypeName = type.qtTypeName
    }
}

/// A method: its arguments and its handler, declared once.
public struct Method: Sendable {
    public let name: MemberName
    public let inputs: [Argument]
    public let outputs: [Argument]
    let answer: Answer
    /// Where the reply is kept marshalled between changes, for a method
    /// whose answer is the same for every caller.
    var replyCache: ReplyCache?

    /// Also takes a non-negative `i` wherever it declares a `u` argument
    /// (``Member/takingInt32AsUInt32()``).
    var takesInt32AsUInt32 = false

    /// The signature the call's body must have.
    public var inputSignature: Signature { Signature(unchecked: inputs.map(\.signature.rawValue).joined()) }

    /// Whether a call whose body has `signature` may run this method.
    func accepts(_ signature: Signature) -> Bool {
        if signature == inputSignature { return true }
        guard takesInt32AsUInt32 else { return false }
        let int32Form = inputs.map { $0.signature.rawValue == "u" ? "i" : $0.signature.rawValue }.joined()
        return signature.rawValue == int32Form
    }

    /// Where a method's handler runs.
    enum Answer: Sendable {
        /// In a task of its own, so it may await; it takes one of the
        /// sender's in-flight slots (``CallPolicy``) until it replies.
        case inTask(@Sendable (MethodCall) async throws -> [DBusValue])
        /// On the loop thread, before the next message is dispatched.
        case onLoop(@Sendable (MethodCall) throws -> [DBusValue])
    }
}

/// A property: type, access, change behaviour, getter and optional setter.
public struct Property: Sendable {
    public let name: MemberName
    public let signature: Signature
    /// The C++ type of its value in Qt (``DBusType/qtTypeName``).
    public let qtTypeName: String
    public let access: PropertyAccess
    public let changes: PropertyChangeBehavior
    /// Receives the path of the object read, so one interface value can
    /// serve many objects (DBusKit stores it once for all of them).
    let get: (@Sendable (ObjectPath) throws -> DBusValue)?
    let set: (@Sendable (MethodCall, DBusValue) async throws -> Void)?
}

/// A signal and its arguments.
public struct Signal: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    public var signature: Signature { Signature(unchecked: arguments.map(\.signature.rawValue).joined()) }
}

/// One member of an interface declaration.
public enum Member: Sendable {
    case method(Method)
    case property(Property)
    case signal(Signal)

    /// This method also takes a non-negative `i` (int32) wherever it
    /// declares a `u` argument, for callers that can send numbers only as
    /// `i`: KWin's scripts, for one. Introspection still shows `u`; a
    /// negative number is `InvalidArgs`.
    public func takingInt32AsUInt32() -> Member {
        guard case .method(var method) = self else { return self }
        method.takesInt32AsUInt32 = true
        return .method(method)
    }
}

/// An interface declared once: dispatch, introspection and change signals
/// all come from this value.
public struct Interface: Sendable {
    public let name: InterfaceName
    public let methods: [MemberName: Method]
    public let properties: [MemberName: Property]
    public let signals: [MemberName: Signal]
    /// Members in declaration order, for stable introspection output.
    let order: [Member]
    /// Readable properties by name, for GetAll and GetManagedObjects, which
    /// read every one of them on every object.
    let readableProperties: [Property]

    public init(_ name: InterfaceName, _ members: [Member]) {
        self.name = name
        order = members
        var methods: [MemberName: Method] = [:], properties: [MemberName: Property] = [:], signals: [MemberName: Signal] = [:]
        for member in members {
            switch member {
            case .method(let m): methods[m.name] = m
            case .property(let p): properties[p.name] = p
            case .signal(let s): signals[s.name] = s
            }
        }
        self.methods = methods
        self.properties = properties
        self.signals = signals
        readableProperties = properties.values.filter { $0.get != nil }.sorted { $0.name.rawValue < $1.name.rawValue }
    }
}

/// Arguments of `types`, in order, named by `names`; unnamed ones are `<prefix><index>`.
func arguments<each T: DBusType>(_ names: [String], of types: repeat (each T).Type, prefix: String) -> [Argument] {
    var result: [Argument] = []
    for type in repeat each types {
        let index = result.count
        result.append(Argument(name: index < names.count ? names[index] : "\(prefix)\(index)", type: type))
    }
    return result
}

extension Member {
    /// Declares a method whose Swift parameter and return types give its
    /// D-Bus signature. The handler runs in its own task, so it may await
    /// (polkit, other services) without holding up the connection.
    public static func method<each In: DBusType, each Out: DBusType>(
        _ name: MemberName, in inNames: [String] = [], out outNames: [String] = [],
        _ body: @escaping @Sendable (MethodCall, repeat each In) async throws -> (repeat each Out)
    ) -> Member {
        .method(Method(
            name: name, inputs: arguments(inNames, of: repeat (each In).self, prefix: "arg"),
            outputs: arguments(outNames, of: repeat (each Out).self, prefix: "out"),
            answer: .inTask { call in
                let input = try call.arguments(repeat (each In).self)
                let output = try await body(call, repeat each input)
                return wireValues(repeat each output)
            }))
    }

    /// Declares a method answered on the connection's loop thread, for an
    /// answer that never waits (a read under a short lock, no I/O). No task
    /// is started and no in-flight slot taken, so a flood of such calls
    /// costs the least it can, and other callers wait behind it the least.
    public static func immediateMethod<each In: DBusType, each Out: DBusType>(
        _ name: MemberName, in inNames: [String] = [], out outNames: [String] = [],
        _ body: @escaping @Sendable (MethodCall, repeat each In) throws -> (repeat each Out)
    ) -> Member {
        .method(Method(
            name: name, inputs: arguments(inNames, of: repeat (each In).self, prefix: "arg"),
            outputs: arguments(outNames, of: repeat (each Out).self, prefix: "out"),
            answer: .onLoop { call in
                let input = try call.arguments(repeat (each In).self)
                let output = try body(call, repeat each input)
                return wireValues(repeat each output)
            }))
    }

    /// Declares a read-only property.
    public static func property<T: DBusType>(
        _ name: MemberName, _ type: T.Type = T.self, changes: PropertyChangeBehavior = .emits,
        get: @escaping @Sendable () -> T
    ) -> Member {
        .property(Property(name: name, signature: T.dbusSignature, qtTypeName: T.qtTypeName, access: .read, changes: changes,
                           get: { _ in get().dbusValue }, set: nil))
    }

    /// Declares a read-only property whose getter is told which object is
    /// read: an interface declared this way is shared by every object that
    /// exports it, instead of one copy with its own closures per object.
    public static func property<T: DBusType>(
        _ name: MemberName, _ type: T.Type = T.self, changes: PropertyChangeBehavior = .emits,
        at get: @escaping @Sendable (ObjectPath) -> T
    ) -> Member {
        .property(Property(name: name, signature: T.dbusSignature, qtTypeName: T.qtTypeName, access: .read, changes: changes,
                           get: { get($0).dbusValue }, set: nil))
    }

    /// Declares a read-write property. After a successful set, the layer
    /// re-reads the getter and emits `PropertiesChanged` only if the value changed.
    public static func property<T: DBusType>(
        _ name: MemberName, _ type: T.Type = T.self, changes: PropertyChangeBehavior = .emits,
        get: @escaping @Sendable () -> T, set: @escaping @Sendable (MethodCall, T) async throws -> Void
    ) -> Member {
        .property(Property(name: name, signature: T.dbusSignature, qtTypeName: T.qtTypeName, access: .readwrite, changes: changes,
                           get: { _ in get().dbusValue }, set: { call, value in try await set(call, try T(dbusValue: value)) }))
    }

    /// Declares a signal; arguments are (name, Swift type) pairs.
    public static func signal(_ name: MemberName, _ arguments: [(String, any DBusType.Type)] = []) -> Member {
        .signal(Signal(name: name, arguments: arguments.map { Argument(name: $0.0, type: $0.1) }))
    }
}
