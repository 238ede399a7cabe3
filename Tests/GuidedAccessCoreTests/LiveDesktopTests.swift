// SPDX-License-Identifier: LGPL-2.1-or-later
@testable import GuidedAccessCore
import Testing

/// Which desktop's settings the daemon uses, from the session's environment.
@Suite("Live desktop")
struct LiveDesktopTests {
    @Test("KDE in XDG_CURRENT_DESKTOP's list with KDE_SESSION_VERSION 5 or 6 is Plasma, X-Cinnamon is Cinnamon; anything else is GSettings")
    func choice() {
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "KDE", "KDE_SESSION_VERSION": "6"]) == .plasma(version: 6))
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "ubuntu:kde", "KDE_SESSION_VERSION": "5"]) == .plasma(version: 5))
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "KDE"]) == .gsettings, "no version: not a Plasma session")
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "KDE", "KDE_SESSION_VERSION": "4"]) == .gsettings)
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "GNOME", "KDE_SESSION_VERSION": "6"]) == .gsettings)
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "X-Cinnamon"]) == .cinnamon)
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "X-Cinnamon:GNOME"]) == .cinnamon)
        #expect(LiveDesktop(environment: ["XDG_CURRENT_DESKTOP": "Cinnamon"]) == .gsettings, "Cinnamon names itself X-Cinnamon")
        #expect(LiveDesktop(environment: [:]) == .gsettings)
    }
}
