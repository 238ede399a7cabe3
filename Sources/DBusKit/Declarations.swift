// SPDX-License-Identifier: LGPL-2.1-or-later
// The shape of an interface's members without their implementation. A
// service passes a declaration to `Member.method`/`.property`/`.signal` along
// with its handler; a client passes the same value to `Proxy`. Names,
// argument names and Swift types therefore come from one place, and a changed
// argument is a compile error on both sides rather than a run-time reply.

/// A method's name, argument names and types. `Output` is `Void` for a method
/// that replies with nothing, or the one `DBusType` it replies with.
public struct MethodDeclaration<each Input: DBusType, Output>: Sendable {
    public let interface: InterfaceName
    public let name: MemberName
    public let inputNames: [String]
    public let outputNames: [String]
}

extension MethodDeclaration where Output == Void {
    /// A method that replies with an empty body.
    public init(_ interface: InterfaceName, _ name: MemberName, in inputNames: [String] = []) {
        self.init(interface: interface, name: name, inputNames: inputNames, outputNames: [])
    }
}

extension MethodDeclaration where Output: DBusType {
    /// A method that replies with one value, named `outputName` in introspection.
    public init(_ interface: InterfaceName, _ name: MemberName, in inputNames: [String] = [], out outputName: String) {
        self.init(interface: interface, name: name, inputNames: inputNames, outputNames: [outputName])
    }
}

/// A property's name, type and change behaviour.
public struct PropertyDeclaration<Value: DBusType>: Sendable {
    public let interface: InterfaceName
    public let name: MemberName
    public let changes: PropertyChangeBehavior

    public init(_ interface: InterfaceName, _ name: MemberName, changes: PropertyChangeBehavior = .emits) {
        self.interface = interface
        self.name = name
        self.changes = changes
    }

    /// The value in a `GetAll` or `PropertiesChanged` dictionary; `nil`
    /// when it is absent or of another type.
    public func value(in properties: [String: Variant]) -> Value? {
        properties[name.rawValue]?.get(Value.self)
    }
}

/// One key of an `a{sv}` options argument and the type of its value, so the
/// side that sends the options and the side that reads them cannot disagree
/// on either. Read and write it through the `[String: Variant]` subscript.
public struct OptionDeclaration<Value: DBusType>: OptionKey {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    /// The D-Bus type the value must have.
    public var signature: Signature { Value.dbusSignature }
}

/// An option's key and value type, whatever the type: what a reader that
/// refuses unknown keys and wrong types needs to know of each option.
public protocol OptionKey: Sendable {
    /// The key in the `a{sv}`.
    var key: String { get }
    /// The D-Bus type of its value.
    var signature: Signature { get }
}

extension Dictionary where Key == String, Value == Variant {
    /// The value of a declared option: `nil` when absent or of another
    /// type. Setting `nil` removes it.
    public subscript<T>(option: OptionDeclaration<T>) -> T? {
        get { self[option.key]?.get(T.self) }
        set { self[option.key] = newValue.map { Variant($0) } }
    }
}

/// A signal's name, argument names and types.
public struct SignalDeclaration<each Argument: DBusType>: Sendable {
    public let interface: InterfaceName
    public let name: MemberName
    public let argumentNames: [String]

    public init(_ interface: InterfaceName, _ name: MemberName, _ argumentNames: [String] = []) {
        self.interface = interface
        self.name = name
        self.argumentNames = argumentNames
    }

    /// The arguments of `message` when it is this signal with the declared
    /// types; `nil` for any other message.
    public func arguments(of message: Message) -> (repeat each Argument)? {
        guard message.interface == interface, message.member == name else { return nil }
        return try? message.decode(repeat (each Argument).self)
    }
}

extension Member {
    /// Implements a declared method that replies with an empty body.
    public static func method<each In: DBusType>(
        _ declaration: MethodDeclaration<repeat each In, Void>,
        _ body: @escaping @Sendable (MethodCall, repeat each In) async throws -> Void
    ) -> Member {
        .method(declaration.name, in: declaration.inputNames) { (call: MethodCall, input: repeat each In) in
            try await body(call, repeat each input)
        }
    }

    /// Implements a declared method that replies with one value.
    public static func method<each In: DBusType, Out: DBusType>(
        _ declaration: MethodDeclaration<repeat each In, Out>,
        _ body: @escaping @Sendable (MethodCall, repeat each In) async throws -> Out
    ) -> Member {
        .method(declaration.name, in: declaration.inputNames, out: declaration.outputNames) {
            (call: MethodCall, input: repeat each In) -> Out in
            try await body(call, repeat each input)
        }
    }

    /// Implements a declared method that replies with one value, answered on
    /// the loop thread (`Member.immediateMethod(_:in:out:_:)`): for reads that never wait.
    public static func immediateMethod<each In: DBusType, Out: DBusType>(
        _ declaration: MethodDeclaration<repeat each In, Out>,
        _ body: @escaping @Sendable (MethodCall, repeat each In) throws -> Out
    ) -> Member {
        .immediateMethod(declaration.name, in: declaration.inputNames, out: declaration.outputNames) {
            (call: MethodCall, input: repeat each In) -> Out in
            try body(call, repeat each input)
        }
    }

    /// Implements a declared method whose reply is the same for every caller
    /// until `cache` is invalidated: it is built once and copied for each call.
    public static func method<Out: DBusType>(
        _ declaration: MethodDeclaration<Out>, cachingReplyIn cache: ReplyCache,
        _ body: @escaping @Sendable (MethodCall) async throws -> Out
    ) -> Member {
        guard case .method(var method) = Member.method(declaration, body) else { preconditionFailure("a method declares a method") }
        method.replyCache = cache
        return .method(method)
    }

    /// Implements a declared read-only property.
    public static func property<T: DBusType>(_ declaration: PropertyDeclaration<T>, get: @escaping @Sendable () -> T) -> Member {
        .property(declaration.name, T.self, changes: declaration.changes, get: get)
    }

    /// Implements a declared read-only property of objects that share one
    /// interface value; the getter is told which object is read.
    public static func property<T: DBusType>(_ declaration: PropertyDeclaration<T>,
                                             at get: @escaping @Sendable (ObjectPath) -> T) -> Member {
        .property(declaration.name, T.self, changes: declaration.changes, at: get)
    }

    /// Lists a declared signal in the interface.
    public static func signal<each Arg: DBusType>(_ declaration: SignalDeclaration<repeat each Arg>) -> Member {
        .signal(Signal(name: declaration.name, arguments: arguments(declaration.argumentNames, of: repeat (each Arg).self, prefix: "arg")))
    }
}

extension Connection {
    /// Emits a declared signal from `path`.
    public func emit<each Arg: DBusType>(_ path: ObjectPath, _ signal: SignalDeclaration<repeat each Arg>,
                                         _ arguments: repeat each Arg) throws {
        try emit(path, signal.interface, signal.name, wireValues(repeat each arguments))
    }
}

/// A typed client of one object of a remote service: calls and reads go
/// through declarations, so arguments and replies are checked by the compiler.
public struct Proxy: Sendable {
    public let connection: Connection
    public let destination: BusName
    public let path: ObjectPath
    /// How long a call waits unless it says otherwise.
    public var timeout: Duration

    public init(_ connection: Connection, destination: BusName, path: ObjectPath, timeout: Duration = .seconds(25)) {
        self.connection = connection
        self.destination = destination
        self.path = path
        self.timeout = timeout
    }

    /// Calls a method that replies with an empty body.
    public func call<each In: DBusType>(_ method: MethodDeclaration<repeat each In, Void>, _ input: repeat each In,
                                        allowInteractiveAuthorization: Bool = false, timeout: Duration? = nil) async throws {
        _ = try await send(method.interface, method.name, wireValues(repeat each input),
                           allowInteractiveAuthorization, timeout)
    }

    /// Calls a method and returns its one reply value.
    public func call<each In: DBusType, Out: DBusType>(
        _ method: MethodDeclaration<repeat each In, Out>, _ input: repeat each In,
        allowInteractiveAuthorization: Bool = false, timeout: Duration? = nil
    ) async throws -> Out {
        let reply = try await send(method.interface, method.name, wireValues(repeat each input),
                                   allowInteractiveAuthorization, timeout)
        var reader = ArgumentReader(reply)
        let value = try reader.next(Out.self)
        try reader.finish()
        return value
    }

    /// Reads one property with `org.freedesktop.DBus.Properties.Get`.
    public func get<T: DBusType>(_ property: PropertyDeclaration<T>) async throws -> T {
        let reply = try await send(.properties, "Get", [.string(property.interface.rawValue), .string(property.name.rawValue)],
                                   false, nil)
        var reader = ArgumentReader(reply)
        return try T(dbusValue: reader.next(Variant.self).value)
    }

    /// Reads every property of `interface` with `org.freedesktop.DBus.Properties.GetAll`.
    public func getAll(_ interface: InterfaceName) async throws -> [String: Variant] {
        var reader = ArgumentReader(try await send(.properties, "GetAll", [.string(interface.rawValue)], false, nil))
        return try reader.next([String: Variant].self)
    }

    private func send(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue],
                      _ interactive: Bool, _ timeout: Duration?) async throws -> [DBusValue] {
        try await connection.call(destination, path, interface, member, arguments,
                                  allowInteractiveAuthorization: interactive, timeout: timeout ?? self.timeout)
    }
}

/// The wire form of each value, in order.
func wireValues<each T: DBusType>(_ values: repeat each T) -> [DBusValue] {
    var result: [DBusValue] = []
    for value in repeat each values { result.append(value.dbusValue) }
    return result
}

/// Members of the standard interfaces that clients match on.
public enum StandardSignals {
    /// `org.freedesktop.DBus.Properties.PropertiesChanged`: interface,
    /// changed values, names invalidated without a value.
    public static let propertiesChanged = SignalDeclaration<String, [String: Variant], [String]>(
        .properties, "PropertiesChanged", ["interface_name", "changed_properties", "invalidated_properties"])
}
