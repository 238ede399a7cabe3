// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit

// The structs the contract's methods and properties carry, as plain values:
// each side checks them against its own rules after decoding. Each names the
// C++ struct a Qt app declares for it (Examples/qt/guidedaccesstypes.h), which
// the interface XML gives `qdbusxml2cpp`.

/// One `Register` entry: `(identifier, text, detail text)`.
public struct RestrictionEntry: DBusStruct, Equatable {
    public let identifier: String, text: String, detail: String

    public init(identifier: String, text: String, detail: String) {
        self.identifier = identifier
        self.text = text
        self.detail = detail
    }

    public static let qtTypeName = "GuidedAccessRestrictionEntry"
    public static let fieldTypes: [any DBusType.Type] = [String.self, String.self, String.self]
    public init(fields: DBusStructFields) throws {
        var fields = fields
        try self.init(identifier: fields.next(), text: fields.next(), detail: fields.next())
    }
    public var fields: [DBusValue] { [.string(identifier), .string(text), .string(detail)] }
}

/// One `List` row: `(identifier, text, detail, state, app, registered)`.
public struct RestrictionRow: DBusStruct, Equatable {
    public let identifier: String, text: String, detail: String, state: String, app: String
    public let registered: Bool

    public init(identifier: String, text: String, detail: String, state: String, app: String, registered: Bool) {
        self.identifier = identifier
        self.text = text
        self.detail = detail
        self.state = state
        self.app = app
        self.registered = registered
    }

    public static let qtTypeName = "GuidedAccessRestrictionRow"
    public static let fieldTypes: [any DBusType.Type] = [String.self, String.self, String.self, String.self, String.self, Bool.self]
    public init(fields: DBusStructFields) throws {
        var fields = fields
        try self.init(identifier: fields.next(), text: fields.next(), detail: fields.next(), state: fields.next(),
                      app: fields.next(), registered: fields.next())
    }
    public var fields: [DBusValue] {
        [.string(identifier), .string(text), .string(detail), .string(state), .string(app), .bool(registered)]
    }
}

/// A screen rectangle as `(iiii)`: x, y, width, height in pixels. The
/// service refuses one without area; this type only carries it.
public struct WireRegion: DBusStruct, Equatable {
    public let x: Int32, y: Int32, width: Int32, height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public static let qtTypeName = "GuidedAccessRegion"
    public static let fieldTypes: [any DBusType.Type] = [Int32.self, Int32.self, Int32.self, Int32.self]
    public init(fields: DBusStructFields) throws {
        var fields = fields
        try self.init(x: fields.next(), y: fields.next(), width: fields.next(), height: fields.next())
    }
    public var fields: [DBusValue] { [.int32(x), .int32(y), .int32(width), .int32(height)] }
}
