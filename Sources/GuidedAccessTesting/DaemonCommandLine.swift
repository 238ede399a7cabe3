// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting

/// `guided-accessd`'s command line as the tests, benchmarks, stress cases and
/// the shell tests' session run it: the one place outside the daemon that
/// spells its options (`docs/guided-accessd.8` describes them). An option
/// left nil is not passed: the daemon's default holds.
public struct DaemonCommandLine: Sendable, Equatable {
    public var executable: String
    /// `--address`: the bus to serve on (nil: the session bus, e.g. when bus-activated).
    public var address: String?
    /// `--state-dir`.
    public var stateDirectory: String?
    /// `--managed-config`.
    public var managedConfig: String?
    /// `--polkit-address`: the system bus polkit is asked on (nil: `DBUS_SYSTEM_BUS_ADDRESS`).
    public var polkitAddress: String?
    /// `--polkit-timeout`, seconds.
    public var polkitTimeout: Double?
    /// `--passcode-cost`: yescrypt's cost; tests set 1 to stay fast.
    public var passcodeCost: Int?
    /// Run as `nobody` (``ProcessRunner/asUnprivileged(_:)``).
    public var asNobody = false

    /// What the daemon runs with unless a test gives the desktop's settings
    /// a store of its own: GLib keeps them in the daemon's memory.
    public static let environment = ["GSETTINGS_BACKEND": "memory"]

    public init(executable: String = Project.daemon) {
        self.executable = executable
    }

    /// The argument vector, program first.
    public var argv: [String] {
        var argv = [executable]
        let options: [(String, String?)] = [
            ("--address", address), ("--state-dir", stateDirectory), ("--managed-config", managedConfig),
            ("--polkit-address", polkitAddress), ("--polkit-timeout", polkitTimeout.map { String($0) }),
            ("--passcode-cost", passcodeCost.map { String($0) }),
        ]
        for case let (name, value?) in options { argv += [name, value] }
        return asNobody ? ProcessRunner.asUnprivileged(argv) : argv
    }
}
