// SPDX-License-Identifier: LGPL-2.1-or-later
import DBusKit
import GuidedAccessContract
import GuidedAccessCore

/// `org.guidedaccess.Features1`: accessibility feature toggles.
extension GuidedAccessService {
    var featuresDeclaration: Interface {
        let properties: [Member] = Feature.allCases.map { feature in
            .property(Contract.Features.enabled(feature)) { self.read { $0.featureValue(feature) } }
        }
        return Interface(ServiceInterface.features.name, properties + [
            .property(Contract.Features.sources) {
                self.read { model in
                    Dictionary(uniqueKeysWithValues: model.featureSourceDescriptions.map { ($0.key.name, $0.value) })
                }
            },
            .property(Contract.Features.locked) {
                self.read { model in Dictionary(uniqueKeysWithValues: model.featureLocks.map { ($0.key.name, $0.value) }) }
            },
            .method(Contract.Features.setFeature) { call, name, enabled in
                try await self.authorized(call, audit: "set-feature", target: "\(name)=\(enabled)", required: { _ in
                    _ = try Feature(parsing: name)
                    return [.configureFeatures]
                }, change: { model in (try model.setFeature(named: name, enabled: enabled), ()) })
            },
            .method(Contract.Features.configureForGuidedAccess) { call, names, enabled in
                try await self.configureForGuidedAccess(call, names, enabled)
            },
        ])
    }

    /// Only during a session, by the locked app itself or an administrator.
    /// Errors are `PermissionDenied` and `Failed`, as in UIKit.
    ///
    /// Whether the caller is the locked app is decided against the model
    /// each time `required` runs: before polkit and again under the lock of
    /// the change, so a session that ends and restarts for another app
    /// while polkit thinks does not let the old app in.
    private func configureForGuidedAccess(_ call: MethodCall, _ names: [String], _ enabled: Bool) async throws {
        let caller = try await identify(call)
        do {
            try await authorized(call, audit: "configure-for-guided-access", target: names.joined(separator: ","), required: { model in
                guard model.enabled else {
                    throw DomainError.failed("accessibility features can be configured only during a Guided Access session")
                }
                for name in names { _ = try GuidedAccessFeature(parsing: name) }
                return model.app == caller.app ? [] : [.configureFeatures]
            }, change: { model in (try model.configureForGuidedAccess(features: names, enabled: enabled), ()) })
        } catch let error as DBusError where error.name == .interactiveAuthorizationRequired {
            throw DomainError.permissionDenied("only the app locked by Guided Access or an administrator may configure features")
        }
    }
}
