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
            case .method(let method):
                if method.inputs.isEmpty && method.outputs.isEmpty {
                    xml += "\(inner)<method name=\"\(method.name)\"/>\n"
                    continue
                }
                xml += "\(inner)<method name=\"\(method.name)\">\n"
                for arg in method.inputs { xml += "\(inner)  <arg name=\"\(escape(arg.name))\" type=\"\(escape(arg.signature.rawValue))\" direction=\"in\"/>\n" }
                for arg in method.outputs { xml += "\(inner)  <arg name=\"\(escape(arg.name))\" type=\"\(escape(arg.signature.rawValue))\" direction=\"out\"/>\n" }
                xml += "\(inner)</method>\n"
            case .property(let property):
                let open = "\(inner)<property name=\"\(property.name)\" type=\"\(escape(property.signature.rawValue))\" access=\"\(property.access.rawValue)\""
                if property.changes == .emits {
                    xml += open + "/>\n"
                } else {
                    xml += open + ">\n"
                    xml += "\(inner)  <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.changes.rawValue)\"/>\n"
                    xml += "\(inner)</property>\n"
                }
            case .signal(let signal):
                if signal.arguments.isEmpty {
                    xml += "\(inner)<signal name=\"\(signal.name)\"/>\n"
                    continue
                }
                xml += "\(inner)<signal name=\"\(signal.name)\">\n"
                for arg in signal.arguments { xml += "\(inner)  <arg name=\"\(escape(arg.name))\" type=\"\(escape(arg.signature.rawValue))\"/>\n" }
                xml += "\(inner)</signal>\n"
            }
        }
        return xml + "\(indent)</interface>\n"
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
