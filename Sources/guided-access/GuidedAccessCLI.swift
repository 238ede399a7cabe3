// SPDX-License-Identifier: LGPL-2.1-or-later
import ArgumentParser
import Foundation

/// `guided-access`: look at and control Guided Access sessions.
@main
struct GuidedAccessCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guided-access",
        abstract: "Lock the desktop to one app, and manage its restrictions and accessibility features.",
        discussion: """
            Talks to the guided-accessd service (org.guidedaccess.GuidedAccess1) on the session bus, \
            or on the bus given with --address or GUIDED_ACCESS_BUS_ADDRESS. Read commands take --json.

            Exit status:
              0  success
              1  other failure
              2  usage error (bad arguments or a value the service refused)
              3  not authorized (run with --interactive or ask an administrator)
              4  the service or the bus is not reachable
              5  invalid state: no session is active, one already is,
                 or it belongs to another app
              6  rate limited: too many wrong passcodes; wait and retry
            """,
        subcommands: [Status.self, Start.self, End.self, LastOptions.self, Passcode.self, Restrictions.self, Features.self, Assessment.self,
                      Monitor.self]
    )

    /// Like ArgumentParser's `main()`, but usage errors exit with 2, not 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage)
            }
            exit(withError: error)
        }
    }
}

/// The exit statuses documented in `--help`.
enum ExitStatus {
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let notAuthorized: Int32 = 3
    static let unreachable: Int32 = 4
    static let invalidState: Int32 = 5
    static let rateLimited: Int32 = 6
}
