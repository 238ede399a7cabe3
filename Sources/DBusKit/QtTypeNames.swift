// SPDX-License-Identifier: LGPL-2.1-or-later
// Qt's D-Bus code generator, `qdbusxml2cpp`, maps only the basic types and
// `v`, `as`, `ay`, `ao`, `ag`, `av` to C++ by itself. For any other type it
// refuses the whole file unless the XML names the C++ type in an
// `org.qtproject.QtDBus.QtTypeName` annotation. Every `DBusType` therefore
// names its C++ type (``DBusType/qtTypeName``), and the introspection data
// carries the annotation wherever Qt needs it: Qt and KDE apps generate
// proxies from the installed XML as it is.

/// The `org.qtproject.QtDBus.QtTypeName` annotation: which names it takes
/// and when a type needs it.
enum QtTypeName {
    /// The annotation on a property; a method or signal argument appends
    /// `.In<n>` or `.Out<n>` (``argumentAnnotation(_:_:)``).
    static let annotation = "org.qtproject.QtDBus.QtTypeName"

    /// Signatures `qdbusxml2cpp` (Qt 5 and 6) types by itself: a single
    /// complete type that is basic, a variant, or an array of `s`, `y`, `o`, `g` or `v`.
    static func isBuiltIn(_ signature: Signature) -> Bool {
        let raw = signature.rawValue
        if raw.count == 1 { return true }
        return ["as", "ay", "ao", "ag", "av"].contains(raw)
    }

    /// The annotation for argument `index` of a method (`direction` "In" or
    /// "Out") or signal (Qt 5 reads signal arguments as "Out").
    static func argumentAnnotation(_ direction: String, _ index: Int) -> String {
        "\(annotation).\(direction)\(index)"
    }

    /// The C++ type of a basic type or variant, as QtDBus marshals it.
    static func basic(_ signature: Signature) -> String {
        switch signature.rawValue {
        case "y": "uchar"
        case "b": "bool"
        case "n": "short"
        case "q": "ushort"
        case "i": "int"
        case "u": "uint"
        case "x": "qlonglong"
        case "t": "qulonglong"
        case "d": "double"
        case "s": "QString"
        case "o": "QDBusObjectPath"
        case "g": "QDBusSignature"
        case "h": "QDBusUnixFileDescriptor"
        case "v": "QDBusVariant"
        default: preconditionFailure("'\(signature)' is not a basic type")
        }
    }

    /// The C++ list type QtDBus uses for an array of `element`.
    static func list(of element: any DBusType.Type) -> String {
        switch element.dbusSignature.rawValue {
        case "s": "QStringList"
        case "y": "QByteArray"
        case "v": "QVariantList"
        default: "QList<\(element.qtTypeName)>"
        }
    }

    /// The C++ map type QtDBus uses for a dictionary.
    static func map(key: any DBusType.Type, value: any DBusType.Type) -> String {
        if key.dbusSignature.rawValue == "s" && value.dbusSignature.rawValue == "v" { return "QVariantMap" }
        return "QMap<\(key.qtTypeName),\(value.qtTypeName)>"
    }
}
