// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import GuidedAccessCore

/// Domain errors travel under their name in the contract's error table,
/// with their message.
extension DomainError: DBusErrorConvertible {
    public var dbusError: DBusError { DBusError(errorName.dbusName, message) }
}
