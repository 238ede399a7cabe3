// SPDX-License-Identifier: LGPL-2.1-or-later
import Foundation
import FileWatching
import Locking
import Testing

/// managed.json's watcher sees the ways a person or a configuration tool
/// changes a file, also when the daemon was given a relative path.
@Suite("File watcher")
struct FileWatcherTests {
    @Test("A relative path is watched from the working directory: a write, a rename into place and a removal are each seen, also by polling (what the daemon falls back to without inotify)", arguments: [false, true])
    func relativePath(polling: Bool) throws {
        let name = ".build/file-watcher-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = Locked(0)
        let watcher = FileWatcher(path: "\(name)/managed.json", polling: polling) { seen.withLock { $0 += 1 } }
        #expect(watcher?.method == (polling ? .polling(errno: 0) : .inotify))
        let file = directory.appendingPathComponent("managed.json")
        func seenAfter(_ change: () throws -> Void) rethrows -> Bool {
            let before = seen.withLock { $0 }
            try change()
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                if seen.withLock({ $0 }) > before { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return false
        }
        #expect(try seenAfter { try Data("{}".utf8).write(to: file) }, "a write")
        let staged = directory.appendingPathComponent("managed.json.new")
        try Data("{\"A\":1}".utf8).write(to: staged)
        var renamed: Int32 = -1
        #expect(seenAfter { renamed = rename(staged.path, file.path) }, "a rename into place")
        #expect(renamed == 0)
        #expect(try seenAfter { try FileManager.default.removeItem(at: file) }, "a removal")
    }

    @Test("A file whose directory does not exist yet: the directory made, then the file written, is seen")
    func directoryMadeLater() throws {
        let directory = URL(fileURLWithPath: "/tmp/file-watcher-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = Locked(0)
        let watcher = FileWatcher(path: directory.appendingPathComponent("managed.json").path) { seen.withLock { $0 += 1 } }
        #expect(watcher != nil)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Data("{}".utf8).write(to: directory.appendingPathComponent("managed.json"))
        let deadline = Date().addingTimeInterval(5)
        while seen.withLock({ $0 }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(seen.withLock { $0 } > 0)
    }

    @Test("A file linked into place from an unnamed temporary (O_TMPFILE and linkat, as Qt's QSaveFile writes a new file) is seen")
    func linkedIntoPlace() throws {
        let directory = URL(fileURLWithPath: "/tmp/file-watcher-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = Locked(0)
        let path = directory.appendingPathComponent("kdeglobals").path
        let watcher = FileWatcher(path: path) { seen.withLock { $0 += 1 } }
        #expect(watcher?.method == .inotify)
        let fd = open(directory.path, O_RDWR | O_CLOEXEC | 0o20_200_000 /* O_TMPFILE */, 0o600)
        try #require(fd >= 0, "O_TMPFILE: errno \(errno)")
        defer { close(fd) }
        _ = "[KDE]\nAnimationDurationFactor=0\n".withCString { write(fd, $0, strlen($0)) }
        #expect(linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0, "errno \(errno)")
        let deadline = Date().addingTimeInterval(5)
        while seen.withLock({ $0 }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(seen.withLock { $0 } > 0)
    }
}
