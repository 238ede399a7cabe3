import DBusKit
import GuidedAccessCore

/// Domain errors travel as `org.guidedaccess.Error.<Name>` with their message.
extension GuidedAccessError: DBusErrorConvertible {
    public var dbusError: DBusError {
        let name = (try? ErrorName(validating: "org.guidedaccess.Error." + self.name)) ?? "org.guidedaccess.Error.Failed"
        return DBusError(name, message)
    }
}
