// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusTesting
import Foundation
import GuidedAccessTesting
import Testing

/// The daemon's own option parsing, as a person at a terminal sees it, and
/// its manual page listing the same options.
@Suite("Daemon command line", .timeLimit(.minutes(1)), .enabled(if: Requirements.canRunDaemon, .daemonReason))
struct DaemonCommandLineTests {
    static let options = ["--address", "--state-dir", "--managed-config", "--polkit-address", "--polkit-timeout",
                          "--print-introspection", "--version", "--help"]

    @Test("--help lists every option, and docs/guided-accessd.8 documents each")
    func helpAndManualPage() async throws {
        let help = try await ProcessRunner.run([Project.daemon, "--help"])
        #expect(help.status == 0)
        let page = try String(contentsOf: Project.root.appendingPathComponent("docs/guided-accessd.8"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        for option in Self.options {
            #expect(help.stdout.contains(option), "--help does not list \(option)")
            #expect(page.contains(option), "docs/guided-accessd.8 does not document \(option)")
        }
        #expect(!help.stdout.contains("passcode-cost") && !help.stdout.contains("passcode-iterations")
                && !help.stdout.contains("print-shell-contract"), "a test-only or build-only option is listed")
        let version = try await ProcessRunner.run([Project.daemon, "--version"])
        #expect(version.status == 0 && version.stdout == "1.0.0\n")
    }

    @Test("A command line it cannot use exits 64 and names the problem", arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["extra"], "unexpected argument 'extra'"),
        (["--polkit-timeout"], "missing value for '--polkit-timeout'"),
        (["--polkit-timeout=0"], "the value '0' is invalid for '--polkit-timeout'"),
        (["--polkit-timeout", "soon"], "the value 'soon' is invalid for '--polkit-timeout'"),
        (["--passcode-cost", "0"], "the value '0' is invalid for '--passcode-cost': give a yescrypt cost, 1 to 11"),
        (["--passcode-cost=12"], "the value '12' is invalid for '--passcode-cost'"),
        (["--passcode-iterations", "-5"], "the value '-5' is invalid for '--passcode-iterations'"),
        (["--print-introspection=yes"], "'--print-introspection' takes no value"),
        (["--print-shell-contract=yes"], "'--print-shell-contract' takes no value"),
    ])
    func usageErrors(arguments: [String], message: String) async throws {
        let result = try await ProcessRunner.run([Project.daemon] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("guided-accessd: error: \(message)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--name=value and --name value mean the same")
    func attachedValues() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-cli-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // No bus at this address: both spellings get as far as connecting, and fail there alike.
        for argv in [["--address=unix:path=\(directory.path)/none", "--state-dir=\(directory.path)"],
                     ["--address", "unix:path=\(directory.path)/none", "--state-dir", directory.path]] {
            let result = try await ProcessRunner.run([Project.daemon] + argv)
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot start") && result.stderr.contains("\(directory.path)/none"), "\(result.stderr)")
        }
    }

    @Test("A managed config named on purpose that does not exist stops the start, before the bus, naming it")
    func missingManagedConfig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ga-managed-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("managd.json").path
        for (argv, environment) in [(["--managed-config", missing], [String: String]()),
                                    ([], ["GUIDED_ACCESS_MANAGED_CONFIG": missing])] {
            let result = try await ProcessRunner.run(
                [Project.daemon, "--address", "unix:path=\(directory.path)/none", "--state-dir", directory.path] + argv,
                environment: environment)
            #expect(result.status == 1)
            #expect(result.stderr.contains("the managed config \(missing) does not exist"), "\(result.stderr)")
            #expect(!result.stderr.contains("\(directory.path)/none"), "it got as far as the bus: \(result.stderr)")
        }
    }
}
