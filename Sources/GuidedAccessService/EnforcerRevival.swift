// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import FoundationEssentials
import Glibc
import GuidedAccessCore

/// How the daemon turns an enforcer back on when it withdraws or its
/// connection leaves the bus during a session: a locked app that disables or
/// unloads the shell's enforcer must not end the lock (DESIGN, "No way out").
/// One entry per enforcer the daemon knows, by the name it gives
/// `RegisterEnforcer`.
struct EnforcerRevival: Sendable {
    /// The host's method that turns the enforcer on.
    enum Enable: Sendable {
        /// Takes one string and answers whether it worked.
        case answering(MethodDeclaration<String, Bool>, argument: String)
        /// Takes nothing; its empty reply means done.
        case plain(MethodDeclaration<Void>)
        /// No call: undoing the user's off setting (``EnforcerOffSetting``)
        /// is what turns it on, as the host follows that setting.
        case bySetting(String)

        /// `Method(argument)`, as the audit log and the daemon log name the call.
        var call: String {
            switch self {
            case .answering(let method, let argument): "\(method.name)(\(argument))"
            case .plain(let method): "\(method.name)()"
            case .bySetting(let setting): "follows \(setting)"
            }
        }
    }

    /// A screen lock during which the host keeps the enforcer off on purpose
    /// and turns it back on at unlock; `isLocked` is true then.
    struct ScreenLock: Sendable {
        let name: BusName
        let path: ObjectPath
        let isLocked: MethodDeclaration<Bool>
    }

    /// The name the enforcer registers with.
    let enforcer: String
    /// The process that hosts the enforcer and turns it on. When nobody owns
    /// this name, the host exited or restarts and turns the enforcer on itself.
    let host: BusName
    let hostPath: ObjectPath
    let enable: Enable
    /// nil: the host keeps the enforcer on across its screen lock.
    let screenLock: ScreenLock?

    /// The attempt as the audit log and the daemon log name it.
    var target: String { "\(enforcer): \(enable.call)" }

    /// Every enforcer the daemon can turn back on, by its registered name.
    static let known: [String: EnforcerRevival] = [gnomeShell.enforcer: gnomeShell, kwin.enforcer: kwin,
                                                   cinnamon.enforcer: cinnamon]

    /// The reference extension, turned on through GNOME Shell's extension manager.
    static let gnomeShell = EnforcerRevival(
        enforcer: "gnome-shell",
        host: "org.gnome.Shell", hostPath: "/org/gnome/Shell",
        enable: .answering(MethodDeclaration("org.gnome.Shell.Extensions", "EnableExtension", in: ["uuid"], out: "success"),
                           argument: "guided-access@guidedaccess.org"),
        screenLock: ScreenLock(name: "org.gnome.ScreenSaver", path: "/org/gnome/ScreenSaver",
                               isLocked: MethodDeclaration("org.gnome.ScreenSaver", "GetActive", out: "active")))

    /// The KWin script: `start()` loads every enabled script that is not
    /// loaded, ours among them. KWin keeps its scripts across its screen lock.
    /// KDE's settings turn a script off in kwinrc (which KWin rereads on
    /// `reconfigure`, unloading it), and `start()` would leave it off: the
    /// daemon is given that setting (`ServiceConfiguration.enforcerOffSettings`).
    static let kwin = EnforcerRevival(
        enforcer: "kwin",
        host: "org.kde.KWin", hostPath: "/Scripting",
        enable: .plain(MethodDeclaration("org.kde.kwin.Scripting", "start")),
        screenLock: nil)

    /// The Cinnamon extension: Cinnamon loads an extension as soon as its
    /// uuid is in `org.cinnamon enabled-extensions` (the daemon is given that
    /// setting) and has no method that turns one on. Cinnamon's screen
    /// locker is a separate program: the extension stays on under it.
    static let cinnamon = EnforcerRevival(
        enforcer: "cinnamon",
        host: "org.Cinnamon", hostPath: "/org/Cinnamon",
        enable: .bySetting("org.cinnamon enabled-extensions"),
        screenLock: nil)

    /// Wait after the loss before deciding: a host that exits drops its name,
    /// and a screen lock reports itself active, within this.
    static let settleDelay = Duration.milliseconds(250)
    /// How long a turned-on enforcer has to register again before the next attempt.
    static let reregistrationWait = Duration.seconds(1)
    /// Attempts per loss; a host that keeps refusing is not asked forever.
    static let maxAttempts = 3
    /// How long one call to the host or the screen lock may take. Generous:
    /// a loaded shell may take seconds to enable an extension, and a call
    /// that times out but then succeeds would be audited as a failure.
    static let callTimeout = Duration.seconds(10)
}

extension GuidedAccessService {
    /// The daemon itself, as the audit log names it for what it does on its own.
    static var daemonAuditCaller: AuditCaller {
        AuditCaller(uid: getuid(), pid: UInt32(getpid()), app: "guided-accessd")
    }

    /// Called once enforcer `name` has withdrawn or left the bus: during a session, turns
    /// a known enforcer back on unless it is off by design; tries again while
    /// it does not register, at most `EnforcerRevival.maxAttempts` times.
    func reviveEnforcer(named name: String, on bus: Connection) async {
        guard let revival = EnforcerRevival.known[name], read({ $0.enabled }) else { return }
        try? await Task.sleep(for: EnforcerRevival.settleDelay)
        for attempt in 1...EnforcerRevival.maxAttempts {
            if let reason = await reasonToLeaveOff(revival, on: bus) {
                log("not turning enforcer \(name) back on: \(reason)")
                return
            }
            await enable(revival, attempt: attempt, on: bus)
            try? await Task.sleep(for: EnforcerRevival.reregistrationWait)
            if enforcers.isRegistered(name) {
                log("enforcer \(name) registered again after attempt \(attempt)")
                return
            }
        }
        log("enforcer \(name) did not register again after \(EnforcerRevival.maxAttempts) attempts to turn it back on")
    }

    /// Why the enforcer should stay off, or nil when it should be turned on.
    /// Local checks first: they cost no round trip.
    private func reasonToLeaveOff(_ revival: EnforcerRevival, on bus: Connection) async -> String? {
        if !read({ $0.enabled }) { return "the session ended" }
        if enforcers.isRegistered(revival.enforcer) { return "an enforcer of that name registered again" }
        let hostOwner = (try? await bus.owner(of: revival.host)) ?? nil  // a bus that cannot say: no owner
        if hostOwner == nil {
            return "\(revival.host) has no owner (it exited or restarts, and turns \(revival.enforcer) on itself)"
        }
        if let screenLock = revival.screenLock, await isLocked(screenLock, on: bus) {
            return "the screen is locked (\(screenLock.name)); unlocking turns it back on"
        }
        return nil
    }

    /// An error or no owner counts as not locked: a screen lock that cannot
    /// answer must not keep the enforcer off.
    private func isLocked(_ screenLock: EnforcerRevival.ScreenLock, on bus: Connection) async -> Bool {
        let proxy = Proxy(bus, destination: screenLock.name, path: screenLock.path, timeout: EnforcerRevival.callTimeout)
        return (try? await proxy.call(screenLock.isLocked)) ?? false
    }

    /// Undoes the user's setting that keeps the enforcer off, audited and
    /// logged when it was off (or could not be undone). Done on the thread
    /// for blocking work.
    private func removeOffSetting(of revival: EnforcerRevival) async {
        guard let setting = enforcerOffSettings[revival.enforcer] else { return }
        let target = "\(revival.enforcer): \(setting.undo)"
        do {
            guard try await model.io.run({ try setting.removeOff() }) else { return }
            log("turning enforcer \(revival.enforcer) back on: \(setting.undo): done")
            audit(Self.daemonAuditCaller, "revive-enforcer", target, .allowed)
        } catch {
            log("turning enforcer \(revival.enforcer) back on: cannot \(setting.undo): \(error)")
            audit(Self.daemonAuditCaller, "revive-enforcer", target, .error(.failed("\(error)")))
        }
    }

    /// One call to the host, audited and logged whatever its outcome.
    private func enable(_ revival: EnforcerRevival, attempt: Int, on bus: Connection) async {
        await removeOffSetting(of: revival)
        let host = Proxy(bus, destination: revival.host, path: revival.hostPath, timeout: EnforcerRevival.callTimeout)
        let failure: String?
        do {
            switch revival.enable {
            case .answering(let method, let argument):
                failure = try await host.call(method, argument) ? nil : "\(revival.host) answered false"
            case .plain(let method):
                try await host.call(method)
                failure = nil
            case .bySetting:
                failure = nil
            }
        } catch {
            failure = "\(error)"
        }
        log("turning enforcer \(revival.enforcer) back on, attempt \(attempt) of \(EnforcerRevival.maxAttempts): "
            + "\(revival.target) " + (failure.map { "failed: \($0)" } ?? "done"))
        audit(Self.daemonAuditCaller, "revive-enforcer", revival.target, failure.map { .error(.failed($0)) } ?? .allowed)
    }
}
