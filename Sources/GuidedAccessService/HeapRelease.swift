// SPDX-License-Identifier: LGPL-2.1-or-later
import CHeap
import Synchronization

/// Gives freed heap back to the system a moment after a burst of frees, such
/// as the registrations of apps that left or the buffers of large calls. glibc keeps freed memory in its
/// arenas otherwise, and the daemon's RSS would stay at its peak for good.
/// Many leaves in a row cost one release.
public final class HeapRelease: Sendable {
    private let scheduled = Atomic(false)
    private let delay: Duration

    init(after delay: Duration = .seconds(1)) { self.delay = delay }

    /// Keeps large blocks (the buffers of big messages, up to the bus's
    /// limit) out of the heap. glibc would otherwise raise its mapping
    /// threshold after the first large block is freed and serve the next
    /// ones from the heap, where freed space between live objects never goes
    /// back: a few 1 MB messages would grow the daemon's RSS for good.
    /// Two heaps for the whole daemon; call it first thing, before any
    /// thread starts. glibc otherwise gives each thread that allocates a
    /// heap of its own (up to 8 per core), and memory freed in one stays
    /// resident there: huge calls decoded on several handler threads at
    /// once left 20 MB free but resident after they were answered (issue 29;
    /// `scripts/stress --long --only fuzz --seed 8`: RSS 16.3 → 34.9 MB after
    /// a settle with per-thread heaps, 15.5 → 17.2 MB with two).
    public static func limitHeaps() {
        _ = cheap_limit_arenas(2)
    }

    static func mapLargeBlocks() {
        _ = cheap_map_blocks_from(256 * 1024)
    }

    func soon() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { [self] in
            try? await Task.sleep(for: delay)
            scheduled.store(false, ordering: .releasing)
            _ = cheap_release_free_memory()
        }
    }
}
