// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation

/// Qt 5's D-Bus tools, for tests that generate proxies from introspection
/// XML the way Qt and KDE apps do, and skip without them.
public enum QtTools {
    /// `qdbusxml2cpp` from `qtbase5-dev-tools` (Debian's path, then Fedora's), or nil.
    public static let generator: String? = ["/usr/lib/qt5/bin/qdbusxml2cpp", "/usr/lib64/qt5/bin/qdbusxml2cpp"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether a QtDBus client can be built too: the generator, Qt's
    /// development files (`Qt5DBus.pc` from `qtbase5-dev`) and `g++`.
    public static let canBuildClients: Bool = {
        guard generator != nil, FileManager.default.isExecutableFile(atPath: "/usr/bin/g++") else { return false }
        let pkgConfig = Process()
        pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
        pkgConfig.arguments = ["--exists", "Qt5DBus"]
        guard (try? pkgConfig.run()) != nil else { return false }
        pkgConfig.waitUntilExit()
        return pkgConfig.terminationStatus == 0
    }()

    /// Why a test that needs `generator` is skipped.
    public static let generatorMissing = "needs qdbusxml2cpp (apt-get install qtbase5-dev-tools, or scripts/install-deps)"
    /// Why a test that needs `canBuildClients` is skipped.
    public static let clientToolsMissing =
        "needs qdbusxml2cpp, Qt 5 development files and g++ (apt-get install qtbase5-dev qtbase5-dev-tools g++, or scripts/install-deps)"
}
