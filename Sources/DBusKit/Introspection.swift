// SPDX-License-Identifier: LGPL-2.1-or-later
/// Builds `org.freedesktop.DBus.Introspectable` XML from declarations.
enum Introspection {
    static let header = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

    """

    /// The document for one node: its interfaces and the names of its children.
    static func document(interfaces: [Interface], children: [String]) -> String {
        var xml = header + "<node>\n"
        for interface in interfaces { xml += xmlFragment(interface, indent: "  ") }
        for child in children { xml += "  <node name=\"\(escape(child))\"/>\n" }
        return xml + "</node>\n"
    }

    /// One `<interface>` element, indented; also used for the `dbus/*.xml` contract files.
    static func xmlFragment(_ interface: Interface, indent: String) -> String {
        var xml = "\(indent)<interface name=\"\(interface.name)\">\n"
        let inner = indent + "  "
        for member in interface.order {
            switch member {
            case .method(let method): xml += element(method, indent: inner)
            case .property(let property): xml += element(property, indent: inner)
            case .signal(let signal): xml += element(signal, indent: inner)
            }
        }
        return xml + "\(indent)</interface>\n"
    }

    static func element(_ method: Method, indent: String) -> String {
        var children = method.inputs.map { argument($0, direction: "in", indent: indent + "  ") }
            + method.outputs.map { argument($0, direction: "out", indent: indent + "  ") }
        children += qtAnnotations(method.inputs, "In", indent: indent + "  ")
            + qtAnnotations(method.outputs, "Out", indent: indent + "  ")
        return element("method", name: method.name, attributes: "", children: children, indent: indent)
    }

    static func element(_ property: Property, indent: String) -> String {
        var children: [String] = []
        if property.changes != .emits {
            children.append(annotation("org.freedesktop.DBus.Property.EmitsChangedSignal", property.changes.rawValue, indent: indent + "  "))
        }
        if !QtTypeName.isBuiltIn(property.signature) {
            children.append(annotation(QtTypeName.annotation, property.qtTypeName, indent: indent + "  "))
        }
        let attributes = " type=\"\(escape(property.signature.rawValue))\" access=\"\(property.access.rawValue)\""
        return element("property", name: property.name, attributes: attributes, children: children, indent: indent)
    }

    static func element(_ signal: Signal, indent: String) -> String {
        let children = signal.arguments.map { argument($0, direction: nil, indent: indent + "  ") }
            + qtAnnotations(signal.arguments, "Out", indent: indent + "  ")
        return element("signal", name: signal.name, attributes: "", children: children, indent: indent)
    }

    /// `<kind name="..." ...>` with its children, or self-closed without any.
    static func element(_ kind: String, name: MemberName, attributes: String, children: [String], indent: String) -> String {
        let open = "\(indent)<\(kind) name=\"\(name)\"\(attributes)"
        if children.isEmpty { return open + "/>\n" }
        return open + ">\n" + children.joined() + "\(indent)</\(kind)>\n"
    }

    static func argument(_ argument: Argument, direction: String?, indent: String) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "\(indent)<arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.signature.rawValue))\"\(direction)/>\n"
    }

    /// Qt's type names for the arguments `qdbusxml2cpp` cannot type itself,
    /// on the member as Qt 5 reads them (`...QtTypeName.In0`, `.Out1`).
    static func qtAnnotations(_ arguments: [Argument], _ direction: String, indent: String) -> [String] {
        arguments.enumerated().compactMap { index, argument in
            QtTypeName.isBuiltIn(argument.signature) ? nil
                : annotation(QtTypeName.argumentAnnotation(direction, index), argument.qtTypeName, indent: indent)
        }
    }

    static func annotation(_ name: String, _ value: String, indent: String) -> String {
        "\(indent)<annotation name=\"\(name)\" value=\"\(escape(value))\"/>\n"
    }

    /// A standalone document holding only the given interfaces (for `dbus/*.xml`).
    static func contract(_ interfaces: [Interface]) -> String {
        document(interfaces: interfaces, children: [])
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension Interface {
    /// This interface as a standalone introspection document — the form kept
    /// in the repository's `dbus/` folder as the contract.
    public var introspectionXML: String { Introspection.contract([self]) }

    /// One document describing several interfaces.
    public static func introspectionDocument(_ interfaces: [Interface]) -> String {
        Introspection.contract(interfaces)
    }
}
