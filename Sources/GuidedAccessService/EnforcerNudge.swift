// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessCore

/// How the daemon tells an enforcer that cannot receive D-Bus signals that
/// the session changed, so that it reads the session again at once instead
/// of asking every so often (docs/desktop-integration.md). KWin's scripts
/// can only make calls; what reaches them is a global shortcut, and
/// kglobalaccel invokes one by name for any caller. The enforcer registers a shortcut
/// with no key under this name; invoking it makes the enforcer read the
/// session (`GetAll`) once. A nudge carries nothing: whoever else invokes
/// the shortcut only makes the enforcer read what the daemon publishes.
struct EnforcerNudge: Sendable {
    /// The name the enforcer registers with, for the log.
    let enforcer: String
    let destination: BusName
    let path: ObjectPath
    let interface: InterfaceName
    let member: MemberName
    let arguments: [String]

    /// Every enforcer the daemon nudges.
    static let all = [kwin]

    /// The KWin script's shortcut "Guided Access session changed", in the
    /// component of KWin's shortcuts. kglobalaccel runs inside KWin on
    /// Wayland (5.27 and 6): when KWin is not running, nobody owns the name.
    static let kwin = EnforcerNudge(
        enforcer: "kwin", destination: "org.kde.kglobalaccel", path: "/component/kwin",
        interface: "org.kde.kglobalaccel.Component", member: "invokeShortcut",
        arguments: ["Guided Access session changed", "default"])

    /// The call, sent without waiting: no reply (a nudge that is lost costs
    /// only its latency, as the enforcer also reads the session when it
    /// starts), and no auto-start (a desktop without KWin starts nothing).
    func message() throws -> Message {
        try Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                               arguments: arguments.map { .string($0) }, noReplyExpected: true, autoStart: false)
    }
}

extension GuidedAccessService {
    /// Nudges every enforcer that cannot follow the session's signals.
    func nudgeEnforcers(on bus: Connection) {
        for nudge in EnforcerNudge.all {
            do {
                bus.send(try nudge.message())
            } catch {
                log("cannot nudge enforcer \(nudge.enforcer): \(error)")
            }
        }
    }
}

extension ModelChange {
    /// Whether the change shows in what an enforcer reads when nudged: the
    /// session's properties, and the features it shows on a desktop that
    /// does not follow GNOME's keys (KWin's zoom effect follows Zoom).
    var isReadByEnforcers: Bool {
        switch self {
        case .statusChanged, .sessionPropertiesChanged, .timeExpired, .featureChanged: true
        default: false
        }
    }
}
