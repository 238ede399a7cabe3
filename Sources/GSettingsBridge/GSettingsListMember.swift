// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// An enforcer that is on while its name is a member of a GSettings list,
/// such as the Cinnamon extension in `org.cinnamon enabled-extensions`:
/// Cinnamon's Extensions settings turn it off by taking its uuid out, and
/// Cinnamon loads it as soon as the uuid is back.
public final class GSettingsListMember: EnforcerOffSetting {
    private let thread = GLibThread()
    private let key: SettingKey
    private let member: String

    init(key: SettingKey, member: String) {
        self.key = key
        self.member = member
    }

    /// The Cinnamon extension, guided-access@guidedaccess.org.
    public static let cinnamonExtension = GSettingsListMember(key: "org.cinnamon/enabled-extensions",
                                                              member: "guided-access@guidedaccess.org")

    public var undo: String { "add \(member) to \(key.schema) \(key.key)" }

    /// Adds the member at the list's end (as Cinnamon's settings do), synced
    /// to the store; false when it was there already. Throws when the schema
    /// is not installed or the key is locked.
    public func removeOff() throws -> Bool {
        let (key, member) = (key, member)
        let outcome: Result<Bool, SettingError> = thread.perform {
            let installed = InstalledSettings()
            guard installed.install(key, requiredType: "as"), let members = installed.strings(of: key) else {
                return .failure(SettingError(installed.problems.first ?? "\(key) is not a list of strings"))
            }
            guard !members.contains(member) else { return .success(false) }
            do throws(SettingError) {
                try installed.write(key, strings: members + [member])
            } catch {
                return .failure(error)
            }
            installed.sync()
            return .success(true)
        }
        return try outcome.get()
    }
}
