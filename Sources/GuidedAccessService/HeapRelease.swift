import CHeap
import Synchronization

/// Gives freed heap back to the system a moment after a burst of frees, such
/// as the registrations of apps that left. glibc keeps freed memory in its
/// arenas otherwise, and the daemon's RSS would stay at its peak for good.
/// Many leaves in a row cost one release.
final class HeapRelease: Sendable {
    private let scheduled = Atomic(false)
    private let delay: Duration

    init(after delay: Duration = .seconds(1)) { self.delay = delay }

    func soon() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { [self] in
            try? await Task.sleep(for: delay)
            scheduled.store(false, ordering: .releasing)
            _ = cheap_release_free_memory()
        }
    }
}
