// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation

/// Where the project's built programs and shipped files are, found the same
/// way by the tests, the benchmarks and the shell tests' session.
public enum Project {
    /// The package's directory (this file is `Sources/GuidedAccessTesting/Project.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The polkit actions the daemon asks about.
    public static let policyFile = root.appendingPathComponent("polkit/org.guidedaccess.policy")

    /// The interface XML the project ships: `dbus/org.guidedaccess.*.xml`, sorted.
    public static let interfaceFiles: [URL] = {
        let directory = root.appendingPathComponent("dbus")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("org.guidedaccess.") && $0.hasSuffix(".xml") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }()

    /// `guided-accessd`: `$GUIDED_ACCESSD`, else the built one (``executable(_:)``).
    public static var daemon: String {
        if let path = ProcessInfo.processInfo.environment["GUIDED_ACCESSD"], !path.isEmpty { return path }
        return executable("guided-accessd")
    }

    /// The `guided-access` command-line tool.
    public static var cli: String { executable("guided-access") }

    /// A built executable of this package: beside the running program (a test
    /// bundle or benchmark, in whatever scratch path and configuration it was
    /// built), else in `<root>/.build/debug`.
    public static func executable(_ name: String) -> String {
        for directory in runningProgramDirectories {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return root.appendingPathComponent(".build/debug/\(name)").path
    }

    /// The daemon a benchmark measures: `--daemon PATH` among `arguments`,
    /// else the one built beside the benchmark (a release build, never the
    /// debug fallback of ``executable(_:)``). Exits with status 2 and a hint
    /// when there is none.
    public static func benchmarkedDaemon(_ arguments: [String] = CommandLine.arguments) -> String {
        let given = arguments.firstIndex(of: "--daemon").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let path = given ?? URL(fileURLWithPath: arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("guided-accessd").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            print("no daemon at \(path): run `swift build -c release` first, or pass --daemon PATH")
            exit(2)
        }
        return path
    }

    /// Directories of the running program, most reliable first.
    private static var runningProgramDirectories: [URL] {
        [(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "",
         Bundle.main.executablePath ?? "", CommandLine.arguments.first ?? ""]
            .filter { !$0.isEmpty }
            .map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
    }
}
