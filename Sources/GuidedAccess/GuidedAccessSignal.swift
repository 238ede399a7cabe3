// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit

/// A signal from the service.
public struct GuidedAccessSignal: Sendable {
    /// The object that sent it.
    public var path: String
    /// Its interface.
    public var interface: String
    /// Its name.
    public var member: String
    /// Its arguments.
    public var arguments: [DBusValue]

    init(_ message: Message) {
        path = message.path?.rawValue ?? ""
        interface = message.interface?.rawValue ?? ""
        member = message.member?.rawValue ?? ""
        arguments = message.arguments
    }
}
