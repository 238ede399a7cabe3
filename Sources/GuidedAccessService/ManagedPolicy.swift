// SPDX-License-Identifier: LGPL-2.1-or-later
import FileWatching
import FoundationEssentials
import Glibc
import GuidedAccessCore

/// managed.json while the daemon runs: Single App Mode taken up at start,
/// and every change of the file acted on within moments (inotify), so a
/// fleet's configuration tool needs no restart. A file that does not parse
/// keeps the last good policy: a typo never unlocks a kiosk.
extension GuidedAccessService {
    /// Starts the administrator's Single App Mode if the policy has one,
    /// and follows the file from now on. Before the bus name is taken, so
    /// no caller sees the machine unlocked.
    func followManagedConfig() async {
        await actOnManagedConfig(read { $0.managedConfig }, reason: "daemon started")
        managedConfigWatcher.withLock { watcher in
            watcher = FileWatcher(path: managedConfigPath) { [weak self] in
                Task { await self?.managedConfigMayHaveChanged() }
            }
            switch watcher?.method {
            case nil:
                log("cannot watch \(managedConfigPath) for changes; a change takes effect when the daemon restarts")
            case .polling(let error):
                log("inotify is not available (\(String(cString: strerror(error))); fs.inotify.max_user_instances may be used up): "
                    + "looking at \(managedConfigPath) every \(FileWatcher.pollInterval) instead")
            case .inotify:
                break
            }
        }
        // A change made between the first reading and the watch.
        await managedConfigMayHaveChanged()
    }

    /// Reads the file again and acts on what changed, one reading at a time.
    func managedConfigMayHaveChanged() async {
        await managedConfigReads.withLock { await readManagedConfigAgain() }
    }

    private func readManagedConfigAgain() async {
        let config: ManagedConfig
        do {
            config = try ManagedConfig.load(from: managedConfigPath)
        } catch {
            log("\(error); keeping the policy read before")
            audit(Self.administrator, "managed-config", "kept the last good policy: \(error.problem)", .error(.invalidArgument(error.problem)))
            return
        }
        guard config != read({ $0.managedConfig }) else { return }
        await actOnManagedConfig(config, reason: "managed.json changed")
    }

    private func actOnManagedConfig(_ config: ManagedConfig, reason: String) async {
        let before = read { ($0.mode, $0.app) }
        do {
            let changes = try await model.with { model in
                try model.applyManagedConfig(config, now: Date())
            }
            publish(changes)
            if config != ManagedConfig() || reason != "daemon started" { audit(Self.administrator, "managed-config", reason, .allowed) }
        } catch {
            log("cannot act on \(managedConfigPath) (\(reason)): \(error); keeping the policy read before")
            audit(Self.administrator, "managed-config", "\(reason): \(error)", .error(error as? DomainError ?? .failed("\(error)")))
            return
        }
        let after = read { ($0.mode, $0.app) }
        guard before.0 != after.0 || before.1 != after.1 else { return }
        let what = after.0 == .singleApp ? (before.0 == .singleApp ? "single-app-mode-moved" : "single-app-mode-started")
                                        : "single-app-mode-ended"
        log("\(what): \(after.0 == .singleApp ? after.1 : before.1) (\(reason))")
        audit(Self.administrator, what, after.0 == .singleApp ? after.1 : before.1, .allowed)
    }

    /// Who acts when the administrator's file does: recorded as this user
    /// and the file, since no bus caller asked.
    private static var administrator: AuditCaller { AuditCaller(uid: getuid(), pid: 0, app: "managed.json") }
}
