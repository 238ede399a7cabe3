// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Tells when one file may have changed: written and closed, moved into
/// place, moved away or deleted (inotify on its directory, so an editor's
/// or a configuration tool's rename is seen too). While the directory does
/// not exist, its parent is watched for it to appear.
///
/// A thread of its own waits in `read`; it lives as long as the process.
/// The callback may come for a change that left the file as it was:
/// compare before acting.
final class FileWatcher: Sendable {
    private let directory: String
    private let parent: String
    private let fileName: String
    private let directoryName: String
    private let changed: @Sendable () -> Void

    /// Watches `path`; nil (and nothing watched) when inotify is not available.
    init?(path: String, changed: @escaping @Sendable () -> Void) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard path.hasPrefix("/"), let name = parts.last else { return nil }
        fileName = name
        directory = "/" + parts.dropLast().joined(separator: "/")
        directoryName = parts.dropLast().last ?? ""
        parent = "/" + parts.dropLast(2).joined(separator: "/")
        self.changed = changed
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let context = UnsafeMutablePointer<(Unmanaged<FileWatcher>, Int32)>.allocate(capacity: 1)
        context.initialize(to: (box, descriptor))
        let status = pthread_create(&thread, nil, { raw in
            let context = raw!.assumingMemoryBound(to: (Unmanaged<FileWatcher>, Int32).self)
            let (box, descriptor) = context.move()
            context.deallocate()
            box.takeRetainedValue().watch(descriptor)
        }, context)
        guard status == 0 else {
            close(descriptor)
            return nil
        }
        pthread_detach(thread)
    }

    private func watch(_ descriptor: Int32) -> Never {
        let fileEvents = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if inotify_add_watch(descriptor, directory, fileEvents) < 0 {
                _ = inotify_add_watch(descriptor, parent, UInt32(IN_CREATE | IN_MOVED_TO))
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
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
