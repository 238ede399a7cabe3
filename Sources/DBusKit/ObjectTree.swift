// SPDX-License-Identifier: LGPL-2.1-or-later
/// The objects a connection exports, and the standard interfaces served for
/// them: Properties, Introspectable, ObjectManager. (libdbus itself answers
/// `org.freedesktop.DBus.Peer`.) Lives on the connection's loop thread.
final class ObjectTree {
    private var objects: [ObjectPath: [InterfaceName: Interface]] = [:]
    /// Last values sent in `PropertiesChanged` (or at export), so a change
    /// signal is sent only when a value really changed.
    private var announced: [ObjectPath: [InterfaceName: [MemberName: DBusValue]]] = [:]
    /// The `a{sa{sv}}` of objects whose readable properties all announce
    /// their changes (or never change), built from `announced`:
    /// GetManagedObjects reads thousands of these and calls no getter.
    /// Dropped when a value changes.
    private var announcedObjects: [ObjectPath: DBusValue] = [:]
    var managerPaths: Set<ObjectPath> = []
    /// Who may call, and how much at once.
    let admission = CallAdmission()

    // MARK: Export

    func export(_ path: ObjectPath, _ interfaces: [Interface], on connection: Connection) {
        objects[path] = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        announced[path] = [:]
        announcedObjects[path] = nil
        for interface in interfaces {
            announced[path]![interface.name] = currentValues(interface, at: path, watched: true)
        }
        if let manager = manager(of: path) {
            try? connection.emit(manager, .objectManager, "InterfacesAdded", [.objectPath(path), interfacesAndProperties(path)])
        }
    }

    func unexport(_ path: ObjectPath, on connection: Connection) {
        guard let removed = objects.removeValue(forKey: path) else { return }
        announced[path] = nil
        announcedObjects[path] = nil
        if let manager = manager(of: path) {
            let names = removed.keys.map(\.rawValue).sorted()
            try? connection.emit(manager, .objectManager, "InterfacesRemoved", [.objectPath(path), names.dbusValue])
        }
    }

    private func manager(of path: ObjectPath) -> ObjectPath? {
        managerPaths.first { path.isDescendant(of: $0) }
    }

    // MARK: Property values

    /// Values of the readable properties; `watched` limits to those whose
    /// announced value stays current (they signal changes, or never change).
    private func currentValues(_ interface: Interface, at path: ObjectPath, watched: Bool) -> [MemberName: DBusValue] {
        var values: [MemberName: DBusValue] = [:]
        for property in interface.properties.values {
            guard let get = property.get else { continue }
            if watched && property.changes == .none { continue }
            if let value = try? get(path) { values[property.name] = value }
        }
        return values
    }

    func emitChanges(_ path: ObjectPath, _ interfaceName: InterfaceName, _ names: [MemberName], on connection: Connection) {
        guard let interface = objects[path]?[interfaceName] else { return }
        var changed: [DBusValue.DictionaryEntry] = []
        var invalidated: [String] = []
        for name in names {
            guard let property = interface.properties[name], let get = property.get,
                  property.changes == .emits || property.changes == .invalidates,
                  let value = try? get(path), announced[path]?[interfaceName]?[name] != value else { continue }
            announced[path]![interfaceName]![name] = value
            announcedObjects[path] = nil
            if property.changes == .emits {
                changed.append(.init(key: .string(name.rawValue), value: .variant(value)))
            } else {
                invalidated.append(name.rawValue)
            }
        }
        guard !changed.isEmpty || !invalidated.isEmpty else { return }
        try? connection.emit(path, .properties, "PropertiesChanged", [
            .string(interfaceName.rawValue), .dictionary(key: "s", value: "v", changed), invalidated.dbusValue,
        ])
    }

    /// The interfaces of the object at `path`, by name.
    private func sortedInterfaces(at path: ObjectPath) -> [Interface] {
        guard let interfaces = objects[path] else { return [] }
        // Most objects have one interface; GetManagedObjects asks every one.
        return interfaces.count == 1 ? Array(interfaces.values) : interfaces.values.sorted { $0.name.rawValue < $1.name.rawValue }
    }

    private func interfacesAndProperties(_ path: ObjectPath) -> DBusValue {
        if let built = announcedObjects[path] { return built }
        var fromAnnouncements = true
        let entries = sortedInterfaces(at: path).map { interface in
            let properties: DBusValue
            if let values = announced[path]?[interface.name], !interface.readableProperties.contains(where: { $0.changes == .none }) {
                properties = .dictionary(key: "s", value: "v", interface.readableProperties.compactMap { property in
                    values[property.name].map { .init(key: .string(property.name.rawValue), value: .variant($0)) }
                })
            } else {
                fromAnnouncements = false
                properties = propertyDictionary(interface, at: path)
            }
            return DBusValue.DictionaryEntry(key: .string(interface.name.rawValue), value: properties)
        }
        let built = DBusValue.dictionary(key: "s", value: "a{sv}", entries)
        if fromAnnouncements { announcedObjects[path] = built }
        return built
    }

    private func propertyDictionary(_ interface: Interface, at path: ObjectPath) -> DBusValue {
        var entries: [DBusValue.DictionaryEntry] = []
        entries.reserveCapacity(interface.readableProperties.count)
        for property in interface.readableProperties {
            if let value = try? property.get?(path) { entries.append(.init(key: .string(property.name.rawValue), value: .variant(value))) }
        }
        return .dictionary(key: "s", value: "v", entries)
    }

    // MARK: Dispatch

    /// Admits the caller (``CallPolicy``), then routes the call.
    func dispatch(_ call: MethodCall) {
        admission.admit(call)
    }

    /// Routes one method call; every failure becomes a standard error reply.
    func route(_ call: MethodCall) {
        let message = call.message
        guard let member = message.member else { return }
        let path = call.path
        let interfaces = objects[path]
        let isNode = interfaces != nil || managerPaths.contains(path) || objects.keys.contains { $0.isDescendant(of: path) }
        guard isNode else {
            return fail(call, .unknownObject("no object at \(path)"))
        }
        switch message.interface {
        case InterfaceName.introspectable?:
            guard member.rawValue == "Introspect" else { return fail(call, .unknownMethod("Introspectable has no method \(member)")) }
            return reply(call, [.string(introspect(path))], expecting: "")
        case InterfaceName.properties?:
            return dispatchProperties(call, member, interfaces ?? [:])
        case InterfaceName.objectManager? where managerPaths.contains(path):
            guard member.rawValue == "GetManagedObjects" else { return fail(call, .unknownMethod("ObjectManager has no method \(member)")) }
            return reply(call, [managedObjects(below: path)], expecting: "")
        case let name?:
            guard let interface = interfaces?[name] else {
                return fail(call, .unknownInterface("the object at \(path) has no interface \(name)"))
            }
            guard let method = interface.methods[member] else {
                return fail(call, .unknownMethod("\(name) has no method \(member)"))
            }
            run(method, call)
        case nil:
            // Without an interface, the first interface declaring the member wins (spec allows any).
            let candidates = sortedInterfaces(at: path)
            guard let method = candidates.lazy.compactMap({ $0.methods[member] }).first else {
                return fail(call, .unknownMethod("the object at \(path) has no method \(member)"))
            }
            run(method, call)
        }
    }

    private func run(_ method: Method, _ received: MethodCall) {
        let incoming = method.takesInt32AsUInt32
            ? MethodCall(message: received.message, connection: received.connection, takesInt32AsUInt32: true) : received
        guard method.accepts(incoming.message.signature) else {
            return fail(incoming, .invalidArgs("\(method.name) expects arguments of type '\(method.inputSignature)', got '\(incoming.message.signature)'"))
        }
        if let kept = method.replyCache?.reply(to: incoming.message) {
            return incoming.connection.reply(to: incoming) { kept }
        }
        switch method.answer {
        case .onLoop(let answer):
            incoming.connection.reply(to: incoming) { try incoming.message.makeReply(try answer(incoming)) }
        case .inTask(let handler):
            start(handler, replyCache: method.replyCache, incoming)
        }
    }

    /// Runs a handler in its own task, within the sender's in-flight cap.
    private func start(_ handler: @escaping @Sendable (MethodCall) async throws -> [DBusValue],
                       replyCache: ReplyCache?, _ incoming: MethodCall) {
        let sender = incoming.sender
        guard admission.start(sender) else { return fail(incoming, admission.policy.busy) }
        let call = MethodCall(message: incoming.message, connection: incoming.connection, replyHooks: ReplyHooks(),
                              takesInt32AsUInt32: incoming.takesInt32AsUInt32)
        Task { [admission] in
            defer { admission.finish(sender) }
            do {
                let generation = replyCache?.generation
                let values = try await handler(call)
                let reply = try call.message.makeReply(values)
                if let generation { replyCache?.keep(reply, builtAt: generation) }
                call.connection.reply(to: call) { reply }
                call.replyHooks?.run()
            } catch {
                call.connection.reply(to: call) { call.message.makeErrorReply(DBusError.from(error)) }
            }
        }
    }

    private func reply(_ call: MethodCall, _ values: [DBusValue], expecting signature: Signature) {
        guard call.message.signature == signature else {
            return fail(call, .invalidArgs("expected arguments of type '\(signature)', got '\(call.message.signature)'"))
        }
        call.connection.reply(to: call) { try call.message.makeReply(values) }
    }

    func fail(_ call: MethodCall, _ error: DBusError) {
        call.connection.reply(to: call) { call.message.makeErrorReply(error) }
    }

    private func dispatchProperties(_ call: MethodCall, _ member: MemberName, _ interfaces: [InterfaceName: Interface]) {
        let args = call.message.arguments
        func interface() throws -> Interface {
            guard case .string(let raw)? = args.first else { throw DBusError.invalidArgs("missing interface name") }
            // Only valid names are keys, so an unchecked lookup is safe and cheaper.
            guard let found = interfaces[InterfaceName(unchecked: raw)] else {
                throw DBusError.unknownInterface("the object at \(call.path) has no interface \(raw)")
            }
            return found
        }
        func property(of interface: Interface) throws -> Property {
            guard case .string(let raw) = args[1], let found = interface.properties[MemberName(unchecked: raw)] else {
                throw DBusError.unknownProperty("\(interface.name) has no property \(args[1])")
            }
            return found
        }
        do {
            switch member.rawValue {
            case "Get":
                guard call.message.signature == "ss" else { throw DBusError.invalidArgs("Get expects 'ss', got '\(call.message.signature)'") }
                let found = try property(of: try interface())
                guard let get = found.get else { throw DBusError.accessDenied("property \(found.name) is write-only") }
                reply(call, [.variant(try get(call.path))], expecting: "ss")
            case "GetAll":
                guard call.message.signature == "s" else { throw DBusError.invalidArgs("GetAll expects 's', got '\(call.message.signature)'") }
                reply(call, [propertyDictionary(try interface(), at: call.path)], expecting: "s")
            case "Set":
                guard call.message.signature == "ssv" else { throw DBusError.invalidArgs("Set expects 'ssv', got '\(call.message.signature)'") }
                let owner = try interface()
                let found = try property(of: owner)
                guard let set = found.set else { throw DBusError.propertyReadOnly("property \(found.name) is read-only") }
                guard case .variant(let value) = args[2], value.signature == found.signature else {
                    throw DBusError.invalidArgs("property \(found.name) has type '\(found.signature)'")
                }
                Task {
                    do {
                        try await set(call, value)
                        call.connection.reply(to: call) { try call.message.makeReply([]) }
                        call.connection.propertiesChanged(call.path, owner.name, [found.name])
                    } catch {
                        call.connection.reply(to: call) { call.message.makeErrorReply(DBusError.from(error)) }
                    }
                }
            default:
                throw DBusError.unknownMethod("Properties has no method \(member)")
            }
        } catch {
            fail(call, DBusError.from(error))
        }
    }

    private func managedObjects(below root: ObjectPath) -> DBusValue {
        let entries = objects.keys.filter { $0.isDescendant(of: root) }.sorted { $0.rawValue < $1.rawValue }.map {
            DBusValue.DictionaryEntry(key: .objectPath($0), value: interfacesAndProperties($0))
        }
        return .dictionary(key: "o", value: "a{sa{sv}}", entries)
    }

    // MARK: Introspection

    private func introspect(_ path: ObjectPath) -> String {
        let interfaces = sortedInterfaces(at: path)
        var xml = Introspection.header + "<node>\n" + StandardInterfaces.xml(objectManager: managerPaths.contains(path))
        for interface in interfaces { xml += Introspection.xmlFragment(interface, indent: "  ") }
        for child in children(of: path) { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    /// The next path element of every exported object below `path`.
    private func children(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names = Set<String>()
        for candidate in objects.keys.map(\.rawValue) + managerPaths.map(\.rawValue) where candidate.hasPrefix(prefix) && candidate != path.rawValue {
            if let first = candidate.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }
}

/// Introspection of the interfaces every node serves.
enum StandardInterfaces {
    static func xml(objectManager: Bool) -> String {
        var xml = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="props" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """
        if objectManager {
            xml += """
              <interface name="org.freedesktop.DBus.ObjectManager">
                <method name="GetManagedObjects">
                  <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
                </method>
                <signal name="InterfacesAdded">
                  <arg name="object_path" type="o"/>
                  <arg name="interfaces_and_properties" type="a{sa{sv}}"/>
                </signal>
                <signal name="InterfacesRemoved">
                  <arg name="object_path" type="o"/>
                  <arg name="interfaces" type="as"/>
                </signal>
              </interface>

            """
        }
        return xml
    }
}
