// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import Locking

/// Tells when one file may have changed: written and closed, created,
/// moved into place, moved away or deleted (inotify on its directory, so an editor's
/// or a configuration tool's rename is seen too). While the directory does
/// not exist, its parent is watched for it to appear.
///
/// When inotify cannot be had (most often the user's
/// `fs.inotify.max_user_instances`, 128 on Debian, used up by other
/// programs), the file's status is compared every `pollInterval` instead:
/// slower, but a change is never missed for good.
///
/// A thread of its own waits in `read` (or sleeps between looks); it lives
/// as long as the process. The callback may come for a change that left the
/// file as it was: compare before acting.
public final class FileWatcher: Sendable {
    /// How a watcher learns of changes.
    public enum Method: Equatable, Sendable {
        /// Told by the kernel, at once.
        case inotify
        /// Looks at the file's status every interval, because inotify failed with `errno`.
        case polling(errno: Int32)
    }

    /// How often a polling watcher looks.
    public static let pollInterval: Duration = .milliseconds(500)

    /// How this watcher learns of changes, for the daemon's log.
    public let method: Method
    private let path: String
    private let directory: String
    private let parent: String
    private let fileName: String
    private let directoryName: String
    private let changed: @Sendable () -> Void

    /// Watches `path` (a relative one from the working directory now); nil
    /// (and nothing watched) when no thread can be started. `polling` makes
    /// it poll though inotify works, for tests of that path.
    public init?(path: String, polling: Bool = false, changed: @escaping @Sendable () -> Void) {
        let absolute = path.hasPrefix("/") ? path : Self.workingDirectory() + "/" + path
        self.path = absolute
        let parts = absolute.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = parts.last else { return nil }
        fileName = name
        directory = "/" + parts.dropLast().joined(separator: "/")
        directoryName = parts.dropLast().last ?? ""
        parent = "/" + parts.dropLast(2).joined(separator: "/")
        self.changed = changed
        let descriptor = polling ? -1 : inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            method = .polling(errno: polling ? 0 : errno)
            // The first look before init returns: a change made right after is seen.
            let first = Self.status(of: absolute)
            guard DetachedThread.start({ [self] in self.poll(from: first) }) == 0 else { return nil }
            return
        }
        method = .inotify
        // Watching before init returns: a change made right after is seen.
        addWatch(descriptor)
        guard DetachedThread.start({ [self] in self.watch(descriptor) }) == 0 else {
            close(descriptor)
            return nil
        }
    }

    /// What tells one version of the file from another: where it lives,
    /// its size and when it was last written; nil while it does not exist.
    private struct Status: Equatable {
        let device: UInt, inode: UInt, size: Int, seconds: Int, nanoseconds: Int
    }

    private static func status(of path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(device: UInt(info.st_dev), inode: UInt(info.st_ino), size: Int(info.st_size),
                      seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
    }

    private func poll(from first: Status?) -> Never {
        var last = first
        let interval = Self.pollInterval.components
        var pause = timespec(tv_sec: Int(interval.seconds), tv_nsec: Int(interval.attoseconds / 1_000_000_000))
        while true {
            nanosleep(&pause, nil)
            let now = Self.status(of: path)
            if now != last {
                last = now
                changed()
            }
        }
    }

    private static func workingDirectory() -> String {
        guard let buffer = getcwd(nil, 0) else { return "" }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// Watches the directory, or its parent while the directory does not exist.
    private func addWatch(_ descriptor: Int32) {
        // IN_CREATE: a file linked into place from an unnamed temporary
        // (Qt's QSaveFile, so KDE's tools, when the file did not exist) shows only as created.
        let fileEvents = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        if inotify_add_watch(descriptor, directory, fileEvents) < 0 {
            _ = inotify_add_watch(descriptor, parent, UInt32(IN_CREATE | IN_MOVED_TO))
        }
    }

    private func watch(_ descriptor: Int32) -> Never {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            // Again after every event: the directory may have been made, or replaced.
            addWatch(descriptor)
            if names(in: buffer.prefix(count)).contains(where: { $0 == fileName || $0 == directoryName || $0.isEmpty }) {
                changed()
            }
        }
    }

    /// The names the events in `bytes` are about; `""` for the watched directory itself.
    private func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        let lengthField = MemoryLayout<inotify_event>.offset(of: \inotify_event.len)!
        while offset + header <= bytes.endIndex {
            let length = bytes.withUnsafeBytes {
                Int($0.loadUnaligned(fromByteOffset: offset - bytes.startIndex + lengthField, as: UInt32.self))
            }
            let nameBytes = bytes[(offset + header)..<min(offset + header + length, bytes.endIndex)].prefix { $0 != 0 }
            names.append(String(decoding: nameBytes, as: UTF8.self))
            offset += header + length
        }
        return names
    }
}
