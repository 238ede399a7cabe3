// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract

/// How long the client library waits for the service.
enum ServiceCalls {
    /// Calls that may wait for a person to authenticate get this long.
    static let interactiveTimeout: Duration = .seconds(300)
    /// Everything else.
    static let timeout: Duration = .seconds(25)
}

extension Proxy {
    /// The Guided Access service object on `connection`.
    static func guidedAccess(_ connection: Connection) -> Proxy {
        Proxy(connection, destination: .guidedAccess, path: .guidedAccess, timeout: ServiceCalls.timeout)
    }

    /// Calls a method that replies with nothing; an interactive call may wait
    /// for polkit to ask the person, so it gets the longer timeout.
    func call<each In: DBusType>(_ method: MethodDeclaration<repeat each In, Void>, _ input: repeat each In,
                                 interactively interactive: Bool) async throws {
        try await call(method, repeat each input, allowInteractiveAuthorization: interactive,
                       timeout: interactive ? ServiceCalls.interactiveTimeout : ServiceCalls.timeout)
    }
}
