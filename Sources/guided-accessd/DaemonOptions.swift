// SPDX-License-Identifier: LGPL-2.1-or-later
import GuidedAccessCore

/// The daemon's command line.
///
/// Parsed by hand: seven options did not earn swift-argument-parser, which
/// kept half a megabyte of its code resident in a daemon that runs all
/// session long (the CLI, with its subcommands, still uses it). The manual
/// page is `docs/guided-accessd.8`; keep the two in step.
struct DaemonOptions: Equatable {
    var address: String?
    var stateDir: String?
    var managedConfig: String?
    var polkitAddress: String?
    var polkitTimeout = 25.0
    /// yescrypt cost of new passcode hashes (`--passcode-cost`, 1–11); not in
    /// `--help`: tests set 1 to stay fast, production keeps Debian's default.
    var passcodeCost: Int?
    var printIntrospection = false
    /// `--print-shell-contract`: shell/common/contract.js's text
    /// (``ShellContract``); not in `--help`: scripts/generate-interfaces uses it.
    var printShellContract = false

    /// What the command line asks for.
    enum Request: Equatable {
        case run(DaemonOptions)
        case help
        case version
    }

    /// A command line that cannot be run, with the reason to print.
    struct UsageError: Error, Equatable {
        let message: String
    }

    static let version = "1.0.0"

    static let help = """
        OVERVIEW: Guided Access for the Linux desktop: the session-bus service.

        Serves org.guidedaccess.GuidedAccess1 on the session bus. Usually started by
        D-Bus activation; run it by hand to debug. Logs go to stderr. Stop with SIGTERM
        or Ctrl-C.

        USAGE: guided-accessd [--address <address>] [--state-dir <state-dir>]
                              [--managed-config <managed-config>]
                              [--polkit-address <polkit-address>]
                              [--polkit-timeout <seconds>] [--print-introspection]

        OPTIONS:
          --address <address>     Bus address to serve on (default: the session bus).
          --state-dir <state-dir> State directory (default: $XDG_STATE_HOME/guided-access,
                                  else ~/.local/state/guided-access).
          --managed-config <managed-config>
                                  Managed configuration file
                                  (default: /etc/guided-access/managed.json).
          --polkit-address <polkit-address>
                                  Bus address polkit is reached on (default: the system bus).
          --polkit-timeout <seconds>
                                  Seconds to wait for polkit before refusing. (default: 25)
          --print-introspection   Print the introspection XML of the served interfaces and exit.
          --version               Show the version.
          -h, --help              Show help information.

        ENVIRONMENT:
          GUIDED_ACCESS_MANAGED_CONFIG  overrides the managed config path.
          DBUS_SYSTEM_BUS_ADDRESS       points polkit checks at another system bus.
          GSETTINGS_BACKEND             picks where desktop settings live (dconf on GNOME;
                                        memory keeps them in the process).

        """

    /// Parses `arguments` (without the program name). Options take their
    /// value as the next argument or after `=`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        var options = DaemonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, attached) = split(argument)
            func value() throws(UsageError) -> String {
                if let attached { return attached }
                guard let next = remaining.popFirst() else { throw UsageError(message: "missing value for '\(name)'") }
                return next
            }
            switch name {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--print-introspection":
                guard attached == nil else { throw UsageError(message: "'\(name)' takes no value") }
                options.printIntrospection = true
            case "--print-shell-contract":
                guard attached == nil else { throw UsageError(message: "'\(name)' takes no value") }
                options.printShellContract = true
            case "--address": options.address = try value()
            case "--state-dir": options.stateDir = try value()
            case "--managed-config": options.managedConfig = try value()
            case "--polkit-address": options.polkitAddress = try value()
            case "--polkit-timeout":
                let text = try value()
                guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                    throw UsageError(message: "the value '\(text)' is invalid for '--polkit-timeout': give seconds, more than 0")
                }
                options.polkitTimeout = seconds
            case "--passcode-cost":
                let text = try value()
                guard let cost = Int(text), PasscodeVault.costRange.contains(cost) else {
                    throw UsageError(message: "the value '\(text)' is invalid for '--passcode-cost': give a yescrypt cost, 1 to 11")
                }
                options.passcodeCost = cost
            case "--passcode-iterations":
                // The PBKDF2-era name of --passcode-cost, for scripts written before it.
                let text = try value()
                guard let rounds = Int(text), rounds > 0 else {
                    throw UsageError(message: "the value '\(text)' is invalid for '--passcode-iterations': give a count, more than 0; or use --passcode-cost")
                }
                options.passcodeCost = cost(equivalentToRounds: rounds)
            default:
                throw UsageError(message: name.hasPrefix("-") ? "unknown option '\(name)'" : "unexpected argument '\(name)'")
            }
        }
        return .run(options)
    }

    /// PBKDF2 rounds earlier versions hashed with by default; `--passcode-iterations` counts from it.
    static let formerDefaultRounds = 210_000

    /// The yescrypt cost `--passcode-iterations rounds` stands for: as many
    /// steps below or above the default cost as `rounds` is halvings or
    /// doublings of ``formerDefaultRounds`` (rounded down), within 1–11. So
    /// 210,000 is the default cost 5, and the 1,000 tests used is 1.
    static func cost(equivalentToRounds rounds: Int) -> Int {
        let doublings = (Double(rounds) / Double(formerDefaultRounds)).exponent
        let cost = PasscodeVault.defaultCost + Int(clamping: doublings)
        return min(max(cost, PasscodeVault.costRange.lowerBound), PasscodeVault.costRange.upperBound)
    }

    /// `--name=value` as its two parts; anything else as itself and nil.
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
