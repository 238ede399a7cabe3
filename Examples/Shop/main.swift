// SPDX-License-Identifier: LGPL-2.1-or-later
// A tiny terminal shop that honours Guided Access, after the NSHipster
// article's example: the person running a kiosk can turn purchases off.
//
//   guided-access-shop [--address BUS_ADDRESS]
//
// Commands on stdin, one per line: `list`, `buy ITEM`, `wait allow|deny`
// (block until the purchase restriction has that state; for scripts), `quit`.

import Foundation
import GuidedAccess

/// Declares the shop's one restriction and reports its changes.
final class ShopRestrictions: GuidedAccessRestrictionDelegate {
    static let purchase = "org.example.shop.purchase"

    let guidedAccessRestrictionIdentifiers = [ShopRestrictions.purchase]

    func textForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String {
        "Purchases"
    }

    func detailTextForGuidedAccessRestriction(withIdentifier restrictionIdentifier: String) -> String? {
        "Buying items in the shop"
    }

    func guidedAccessRestriction(withIdentifier restrictionIdentifier: String,
                                 didChange newRestrictionState: GuidedAccessRestrictionState) {
        say("purchase restriction: \(newRestrictionState.rawValue)")
    }
}

let catalogue = ["apple": 120, "book": 1_500, "coffee": 350]

func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// stdin lines, read on a thread of their own so no task blocks on them.
func inputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
    }
}

func price(_ cents: Int) -> String { String(format: "%d.%02d", cents / 100, cents % 100) }

@MainActor
func runShop() async {
    var arguments = CommandLine.arguments.dropFirst()
    var address: String? = nil
    while let argument = arguments.popFirst() {
        if argument == "--address", let value = arguments.popFirst() { address = value; continue }
        if argument.hasPrefix("--address=") { address = String(argument.dropFirst("--address=".count)); continue }
        FileHandle.standardError.write(Data("usage: guided-access-shop [--address BUS_ADDRESS]\n".utf8))
        exit(2)
    }

    let client = address.map { GuidedAccessClient(address: $0) } ?? GuidedAccessClient.shared
    let restrictions = ShopRestrictions()
    do {
        try await client.setRestrictionDelegate(restrictions)
    } catch {
        FileHandle.standardError.write(Data("shop: cannot register with Guided Access: \(error)\n".utf8))
    }
    var purchasesAllowed: Bool { client.guidedAccessRestrictionState(forIdentifier: ShopRestrictions.purchase) == .allow }

    say("Welcome to the shop. Purchases are \(purchasesAllowed ? "on" : "off"). Commands: list, buy ITEM, quit")
    for await line in inputLines() {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case "list":
            for (item, cents) in catalogue.sorted(by: { $0.key < $1.key }) {
                say(purchasesAllowed ? "\(item)  \(price(cents))  [buy \(item)]" : "\(item)  \(price(cents))")
            }
        case "buy":
            guard purchasesAllowed else { say("Purchases are turned off by Guided Access"); continue }
            guard words.count == 2, let cents = catalogue[words[1]] else { say("No such item; try list"); continue }
            say("Bought \(words[1]) for \(price(cents))")
        case "wait":
            guard words.count == 2, let wanted = GuidedAccessRestrictionState(rawValue: words[1]) else {
                say("usage: wait allow|deny"); continue
            }
            await waitFor(wanted, client: client)
        case "quit":
            say("Bye")
            return
        case nil:
            continue
        default:
            say("Unknown command; use list, buy ITEM or quit")
        }
    }
}

/// Returns once the purchase restriction is `wanted`, or after 30 seconds.
func waitFor(_ wanted: GuidedAccessRestrictionState, client: GuidedAccessClient) async {
    let changes = client.restrictionChanges
    if client.guidedAccessRestrictionState(forIdentifier: ShopRestrictions.purchase) == wanted { return }
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await change in changes where change.identifier == ShopRestrictions.purchase && change.state == wanted { return }
        }
        group.addTask { try? await Task.sleep(for: .seconds(30)) }
        await group.next()
        group.cancelAll()
    }
}

await runShop()
