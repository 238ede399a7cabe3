// SPDX-License-Identifier: LGPL-2.1-or-later
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few POSIX file operations the store and the audit log need, with
/// errors turned into messages that name the path.
package enum FileSystem {
    /// `failed("could not OPERATION PATH: strerror")`, read right after the failing call.
    static func failure(_ operation: String, _ path: String) -> DomainError {
        let reason = String(cString: strerror(errno))
        return .failed("could not \(operation) \(path): \(reason); check the directory's permissions and free space")
    }

    /// The whole of `path`, or nil when it does not exist. Any other failure
    /// throws with the system's reason alone ("Permission denied", "Is a
    /// directory"): the caller names the file in its own words.
    package static func readFile(_ path: String) throws(DomainError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0, errno == ENOENT { return nil }
        guard fd >= 0 else { throw .failed(String(cString: strerror(errno))) }
        defer { close(fd) }
        var contents = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .failed(String(cString: strerror(errno))) }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
        }
    }

    /// Creates `path` and missing parents with mode 0700. Every save calls
    /// this (someone may have removed the directory), so an existing one
    /// costs a single system call.
    static func makeDirectory(_ path: String) throws(DomainError) {
        if access(path, F_OK) == 0 { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST { throw failure("create directory", prefix) }
        }
    }

    /// Writes `data` to `path` so that readers see either the old or the new
    /// file, even across a crash or power loss: temp file in the same
    /// directory, fsync, rename over, fsync the directory. The temp file is
    /// locked (`flock`) until it is renamed, so ``removeStrayTemporaries``
    /// can tell a write in progress from one whose writer died.
    package static func writeAtomically(_ data: Data, to path: String, directory: String) throws(DomainError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create", temporary) }
        defer { close(fd) }
        do throws(DomainError) {
            guard flock(fd, LOCK_EX) == 0 else { throw failure("lock", temporary) }
            try writeAll(data, to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw failure("sync", temporary) }
            slowDiskForTests()
            guard rename(temporary, path) == 0 else { throw failure("rename into place", path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }

    /// Test only: `GUIDED_ACCESS_TEST_FSYNC_DELAY_MS` makes every atomic
    /// write this much slower after its fsync, as a slow disk would, so the
    /// stress suite can show that readers and queued writers do not wait on
    /// it. Never set it in production.
    private static let testSyncDelay: UInt32 = getenv("GUIDED_ACCESS_TEST_FSYNC_DELAY_MS")
        .flatMap { UInt32(String(cString: $0)) } ?? 0

    private static func slowDiskForTests() {
        if testSyncDelay > 0 { usleep(testSyncDelay * 1000) }
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(DomainError) {
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw failure("write", path) }
            offset += written
        }
    }

    /// Makes a rename durable: the directory entry itself must reach the disk.
    private static func syncDirectory(_ directory: String) throws(DomainError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("sync directory", directory) }
    }

    /// Removes the temporary files `writeAtomically` leaves for `path` when
    /// a process dies mid-write (`PATH.tmp-PID-N`). A file whose lock can be
    /// taken has no writer left: the kernel drops a dead process's locks,
    /// whereas its pid may linger as a zombie or be reused. Returns the names removed.
    static func removeStrayTemporaries(of path: String, directory: String) -> [String] {
        let prefix = (path.split(separator: "/").last.map(String.init) ?? path) + ".tmp-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            guard name.hasPrefix(prefix) else { return false }
            let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
            return unlink(directory + "/" + name) == 0
        }
    }

    /// Renames `path` to `newPath`; throws on failure.
    static func move(_ path: String, to newPath: String) throws(DomainError) {
        guard rename(path, newPath) == 0 else { throw failure("rename \(path) to", newPath) }
    }
}
